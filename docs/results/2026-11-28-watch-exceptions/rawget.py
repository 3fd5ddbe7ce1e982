import socket,sys
port=int(sys.argv[1]); path=sys.argv[2]; n=int(sys.argv[3]); size=int(sys.argv[4])
for i in range(n):
    s=socket.create_connection(('127.0.0.1',port)); s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    buf=b''
    while True:
        h=buf.find(b'\r\n\r\n')
        if h>=0 and len(buf)-h-4>=size: break
        d=s.recv(1<<20)
        if not d: break
        buf+=d
    s.close()
