# Sends the payload as one PUT by sendfile (little client CPU), reads the status line.
import socket, os, sys
port, path = int(sys.argv[1]), sys.argv[2]
size = os.path.getsize(path)
s = socket.create_connection(("127.0.0.1", port))
s.sendall(f"PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode())
with open(path, "rb") as f: s.sendfile(f)
print(s.recv(100).split(b"\r\n")[0].decode(), end=" ")
