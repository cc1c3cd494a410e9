/* check_safe.c's misleading-gap data (tests/check_safe.c) over a range of seeds:
 * the safe default with and without the unlabeled rows, the property
 * safe >= supervised - 2 points per seed. Build from the repository root:
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -O2 -Iinclude -Isrc -o /tmp/mg \
 *      bench/studies/misleading_gap_seeds.c build/libtsgs3vm.a \
 *      -lhwloc -lz -llzma -lzstd -lbz2 -lm
 *   OMP_NUM_THREADS=1 /tmp/mg FIRST LAST SCALE   (SCALE 1 zscore, 3 class) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
static double acc(const tsgs_model *m, const tsgs_dataset *ds, const double *t, size_t from){
    size_t n=tsgs_dataset_rows(ds),ok=0; double *dec=malloc(sizeof(double)*n);
    tsgs_predict(m,ds,1,dec,NULL);
    for(size_t i=from;i<n;i++) ok+=(dec[i]>0)==(t[i]>0);
    free(dec); return (double)ok/(double)(n-from);}
int main(int argc,char**argv){
    int s0=atoi(argv[1]), s1=atoi(argv[2]); int scale=atoi(argv[3]);
    int fails=0; double ss=0,su=0;
    for(int seed=s0;seed<=s1;seed++){
        size_t n=1040,nl=40;
        float *x=malloc(sizeof(float)*n*2); double *y=malloc(sizeof(double)*n),*t=malloc(sizeof(double)*n);
        for(size_t i=0;i<n;i++){double z0,z1;
            tsgs__normal_pair(tsgs__philox((unsigned)seed,(uint32_t)i,0,0,77),&z0,&z1);
            int left=i%2==0; x[2*i]=(float)((left?-4.0:4.0)+0.5*z0); x[2*i+1]=(float)z1;
            t[i]=z1>(left?-0.84:0.84)?1.0:-1.0; y[i]=i<nl?t[i]:TSGS_UNLABELED;}
        tsgs_dataset *ds=NULL,*lab=NULL;
        tsgs_dataset_from_dense(n,2,x,y,&ds,NULL);
        tsgs_dataset_from_dense(nl,2,x,y,&lab,NULL);
        tsgs_params p=tsgs_params_default(); p.scale=(tsgs_scaling)scale;
        tsgs_model *a=NULL,*b=NULL;
        tsgs_train(ds,&p,NULL,&a,NULL,NULL); tsgs_train(lab,&p,NULL,&b,NULL,NULL);
        double as=acc(a,ds,t,40), au=acc(b,ds,t,40);
        int f=as<au-0.02; fails+=f; ss+=as; su+=au;
        printf("seed %2d safe %.3f sup %.3f %s %s | %s\n",seed,as,au,f?"FAIL":"ok  ",tsgs_model_note(a),tsgs_model_note(b));
        tsgs_model_free(a);tsgs_model_free(b);tsgs_dataset_free(ds);tsgs_dataset_free(lab);free(x);free(y);free(t);}
    printf("fails %d mean safe %.4f sup %.4f\n",fails,ss/(s1-s0+1),su/(s1-s0+1));
}
