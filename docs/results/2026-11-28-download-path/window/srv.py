import socket,os,sys
# usage: srv.py PORT FILE MODE [VALUE]   MODE: plain | cork | nagle (TCP_NODELAY off) | sndbuf (VALUE bytes) | lowat (VALUE)
port=int(sys.argv[1]); path=sys.argv[2]; mode=sys.argv[3]; val=int(sys.argv[4]) if len(sys.argv)>4 else 0
fd=os.open(path,os.O_RDONLY); size=os.fstat(fd).st_size
ls=socket.socket(); ls.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1); ls.bind(('127.0.0.1',port)); ls.listen(8)
while True:
    c,_=ls.accept(); c.setsockopt(socket.IPPROTO_TCP,socket.TCP_NODELAY,0 if mode=='nagle' else 1)
    if mode=='sndbuf': c.setsockopt(socket.SOL_SOCKET,socket.SO_SNDBUF,val)
    if mode=='lowat': c.setsockopt(socket.IPPROTO_TCP,25,val)  # TCP_NOTSENT_LOWAT
    c.recv(100)
    if mode=='cork': c.setsockopt(socket.IPPROTO_TCP,socket.TCP_CORK,1)
    off=0
    while off<size:
        n=os.sendfile(c.fileno(),fd,off,min(1<<20,size-off)); off+=n
    if mode=='cork': c.setsockopt(socket.IPPROTO_TCP,socket.TCP_CORK,0)
    c.close()
