// PUT sink for one experiment: copy (recv+pwrite) or splice (socket->pipe->file); SCAN=1 reads every byte once
// (from the user buffer in copy mode, through mmap of the written file in splice mode), a stand-in for hashing.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdint.h>
static double now(void){struct timeval t;gettimeofday(&t,0);return t.tv_sec+t.tv_usec/1e6;}
static double cpu(int who, int sys){struct rusage r;getrusage(who,&r);struct timeval t= sys? r.ru_stime : r.ru_utime;return t.tv_sec+t.tv_usec/1e6;}
static volatile uint64_t sink;
static uint64_t scan(const uint8_t*p,size_t n){uint64_t a=0;const uint64_t*q=(const uint64_t*)p;for(size_t i=0;i<n/8;i++)a^=q[i]*0x9E3779B97F4A7C15ull;return a;}
int main(int argc,char**argv){
  int splice_mode=!strcmp(argv[1],"splice"); int port=atoi(argv[2]); const char*dir=argv[3]; int doscan=getenv("SCAN")&&atoi(getenv("SCAN"));
  size_t bufsz=getenv("BUF")?atol(getenv("BUF")):256*1024;
  int ls=socket(AF_INET,SOCK_STREAM,0);int one=1;setsockopt(ls,SOL_SOCKET,SO_REUSEADDR,&one,4);
  struct sockaddr_in a={.sin_family=AF_INET,.sin_port=htons(port)};a.sin_addr.s_addr=htonl(0x7f000001);
  if(bind(ls,(void*)&a,sizeof a)||listen(ls,16)){perror("bind");return 1;}
  char*buf=malloc(bufsz);int pp[2];pipe(pp);fcntl(pp[1],F_SETPIPE_SZ,1<<20);
  char logn[256];snprintf(logn,sizeof logn,"/tmp/splice/%s-%d.log",argv[1],doscan);FILE*log=fopen(logn,"a");
  for(;;){int c=accept(ls,0,0);
    for(;;){char head[65536];size_t hl=0;char*e=0;
      while(!(e=memmem(head,hl,"\r\n\r\n",4))){ssize_t n=recv(c,head+hl,sizeof head-hl,0);if(n<=0)goto done;hl+=n;}
      char*cl=strcasestr(head,"content-length:");long len=atol(cl+15);size_t hlen=e+4-head;
      double t0=now(),u0=cpu(RUSAGE_SELF,0),s0=cpu(RUSAGE_SELF,1);
      char path[512];snprintf(path,sizeof path,"%s/f%d",dir,port);
      int f=open(path,O_RDWR|O_CREAT|O_TRUNC,0644);fallocate(f,0,0,len);
      long off=hl-hlen;pwrite(f,head+hlen,off,0);
      if(!splice_mode){while(off<len){size_t want=len-off<(long)bufsz?len-off:bufsz;ssize_t n=recv(c,buf,want,0);if(n<=0){fprintf(stderr,"eof\n");return 1;}
          if(doscan)sink^=scan((uint8_t*)buf,n);pwrite(f,buf,n,off);off+=n;}}
      else{while(off<len){size_t want=len-off<(1<<20)?len-off:(1<<20);ssize_t n=splice(c,0,pp[1],0,want,SPLICE_F_MOVE);if(n<=0){perror("splice");return 1;}
          ssize_t left=n;while(left>0){loff_t o=off+(n-left);ssize_t m=splice(pp[0],0,f,&o,left,SPLICE_F_MOVE);if(m<=0){perror("splice2");return 1;}left-=m;}off+=n;}
        if(doscan){void*m=mmap(0,len,PROT_READ,MAP_SHARED|MAP_POPULATE,f,0);sink^=scan(m,len);munmap(m,len);}}
      ftruncate(f,len);close(f);
      double t1=now(),u1=cpu(RUSAGE_SELF,0),s1=cpu(RUSAGE_SELF,1);double g=len/1073741824.0;
      fprintf(log,"%s scan=%d %.0f MiB/s cpu %.3f s/GiB user %.3f sys %.3f\n",argv[1],doscan,len/1048576.0/(t1-t0),(u1-u0+s1-s0)/g,(u1-u0)/g,(s1-s0)/g);fflush(log);
      unlink(path);const char*r="HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n";send(c,r,strlen(r),0);}
    done: close(c);}
}
