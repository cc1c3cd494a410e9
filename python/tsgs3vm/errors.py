"""The C library's errors as Python exceptions.

Every failed call raises a TSGSError carrying the library's message (which
names the file, line and field at fault) and status. Each status is also
the built-in exception a Python user would catch for it: bad parameters,
data, dimensions and files are ValueErrors, an unreadable path an OSError,
an allocation failure a MemoryError.
"""
from . import _native


class TSGSError(Exception):
    """An error reported by libtsgs3vm."""

    def __init__(self, message, status=0, file="", line=0):
        super().__init__(message)
        self.status = status          # the tsgs_status code
        self.status_name = (_native.STATUS_NAMES[status]
                            if 0 <= status < len(_native.STATUS_NAMES)
                            else "unknown")
        self.file = file              # the input file at fault, "" if none
        self.line = line              # its 1-based line, 0 if none


class TSGSValueError(TSGSError, ValueError):
    """Bad parameters, data, dimensions or file contents."""


class TSGSOSError(TSGSError, OSError):
    """A file that could not be opened, read or written."""


class TSGSMemoryError(TSGSError, MemoryError):
    """An allocation failed."""


class TSGSRuntimeError(TSGSError, RuntimeError):
    """Unsupported here, stopped, or an internal error."""


_BY_STATUS = {
    _native.ERR_NOMEM: TSGSMemoryError,
    _native.ERR_IO: TSGSOSError,
    3: TSGSValueError,  # parse error
    4: TSGSValueError,  # bad parameter
    5: TSGSValueError,  # dimension mismatch
    6: TSGSValueError,  # bad data
    7: TSGSValueError,  # bad model format
}


def check(status, err):
    """Raises the exception for a failed call's status and tsgs_error."""
    if status == 0:
        return
    cls = _BY_STATUS.get(status, TSGSRuntimeError)
    message = err.message.decode("utf-8", "replace") or \
        _native.STATUS_NAMES[status]
    raise cls(message, status, err.file.decode("utf-8", "replace"),
              err.line)
