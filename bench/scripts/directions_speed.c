/* How fast orthogonal directions are made (tsgs__pack_directions), and
 * their bits: directions_speed D COUNT prints the seconds, the ns per
 * coordinate and an FNV-1a hash of the packed panel (the same hash from
 * two builds: the same directions). Build against a tree's library:
 *   gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -Iinclude -Isrc \
 *       bench/scripts/directions_speed.c build/libtsgs3vm.a -lhwloc -lzstd \
 *       -llzma -lbz2 -lz -lm -o /tmp/directions_speed */
#include "internal.h"
#include "kernel/kernel.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  size_t d=strtoul(argv[1],0,10); long count=atol(argv[2]);
  tsgs_params p=tsgs_params_default(); p.sigma=0.01; p.seed=5; p.directions=TSGS_DIRECTIONS_ORTHOGONAL;
  tsgs__fspec fs=tsgs__fspec_of(&p,d);
  long ng=(count+TSGS__LANES-1)/TSGS__LANES;
  float*panel=malloc(sizeof(float)*ng*TSGS__LANES*d),*ph=malloc(sizeof(float)*ng*TSGS__LANES);
  double t=now(); tsgs__pack_directions(&fs,0,count,panel,ph); t=now()-t;
  unsigned long long h=1469598103934665603ULL; unsigned char*b=(unsigned char*)panel;
  for(size_t i=0;i<sizeof(float)*ng*TSGS__LANES*d;i++){h^=b[i];h*=1099511628211ULL;}
  printf("d %zu count %ld: %.3f s (%.1f ns per coordinate) hash %016llx\n",d,count,t,t*1e9/(count*(double)d),h);
}
