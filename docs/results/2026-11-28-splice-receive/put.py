# One PUT of a file by sendfile; prints status, MiB/s and the server's CPU s/GiB for it.
import socket, os, sys, time
port, path, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
size = os.path.getsize(path)
c0 = cpu(); t0 = time.time()
s = socket.create_connection(("127.0.0.1", port))
s.sendall(f"PUT /files/x.bin HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode())
with open(path, "rb") as f: s.sendfile(f)
resp = b""
while b"\r\n\r\n" not in resp: resp += s.recv(4096)
c1 = cpu(); t1 = time.time()
print(resp.split(b"\r\n")[0].decode()[9:12], f"{size / 2**20 / (t1 - t0):.0f} MiB/s {(c1 - c0) / (size / 2**30):.3f} s/GiB")
s.close()
