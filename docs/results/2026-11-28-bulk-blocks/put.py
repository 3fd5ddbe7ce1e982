# One PUT of a file by sendfile; prints status, MiB/s and the server's CPU s/GiB for it, then reads the file back
# (after the CPU is taken) and prints whether its SHA-256 matches: a figure whose bytes did not verify is not reported.
#   put.py PORT FILE PID
# FROM_MEMORY=1 sends the same bytes from memory instead, in 1 MiB sends (the fresh-pages page). The file is read into
# memory inside the timed window, so that client's MiB/s is not the server's; its server CPU is.
import hashlib, os, socket, sys, time
port, path, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])

def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def sha256_of_file(p):
    cached = p + ".sha256"
    if os.path.exists(cached) and os.path.getmtime(cached) >= os.path.getmtime(p):
        return open(cached).read().strip()
    h = hashlib.sha256()
    with open(p, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    open(cached, "w").write(h.hexdigest())
    return h.hexdigest()

def read_back():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /files/x.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(65536)
    head, body = buf.split(b"\r\n\r\n", 1)
    h = hashlib.sha256(body)
    while chunk := s.recv(1 << 20):
        h.update(chunk)
    s.close()
    return head.split(b"\r\n")[0].decode()[9:12], h.hexdigest()

size = os.path.getsize(path)
c0 = cpu(); t0 = time.time()
s = socket.create_connection(("127.0.0.1", port))
s.sendall(f"PUT /files/x.bin HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode())
with open(path, "rb") as f:
    if os.environ.get("FROM_MEMORY"):
        data = memoryview(f.read())
        for i in range(0, len(data), 1 << 20):
            s.sendall(data[i:i + (1 << 20)])
    else:
        s.sendfile(f)
resp = b""
while b"\r\n\r\n" not in resp:
    resp += s.recv(4096)
c1 = cpu(); t1 = time.time()
s.close()
status, digest = read_back()
verdict = "verified" if status == "200" and digest == sha256_of_file(path) else f"NOT VERIFIED (GET {status})"
print(resp.split(b"\r\n")[0].decode()[9:12], f"{size / 2**20 / (t1 - t0):.0f} MiB/s {(c1 - c0) / (size / 2**30):.3f} s/GiB {verdict}")
