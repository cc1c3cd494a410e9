#!/bin/bash
tool=$1; u=$2; out=$3; name=$(basename $u); base=${name%%@*}; base=${base%%.seed*}
w=$(dirname $(dirname $u)); test=$w/data/$base.test.svm
mkdir -p $out
TSGS_DUMP=$out/$name.dump TSGS_SAVE_ALL=$out/$name.m $tool train -q --unlabeled $u/unlabeled.svm $u/labeled.svm $out/$name.m0 2>$out/$name.log
maj=$(awk '{c[$1]++} END{m=0;for(k in c) if(c[k]>m)m=c[k]; printf "%.2f", 100*m/NR}' $test)
line="$name $maj"
for k in 0 1 2 3 4 5; do
  a=$($tool predict $out/$name.m.$k $test $out/$name.p 2>&1 | grep -o 'Accuracy = [0-9.]*' | cut -d' ' -f3)
  line="$line $a"
done
rm -f $out/$name.m.* $out/$name.p $out/$name.m0
echo "$line" > $out/$name.acc
