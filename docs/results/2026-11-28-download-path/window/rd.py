import socket,sys,time
port=int(sys.argv[1]); buf=bytearray(int(sys.argv[2])); n=int(sys.argv[3]); mv=memoryview(buf)
tot=0;t0=time.time()
for i in range(n):
    s=socket.create_connection(('127.0.0.1',port)); s.sendall(b'go')
    while True:
        k=s.recv_into(mv)
        if k==0: break
        tot+=k
    s.close()
print(tot, time.time()-t0)
