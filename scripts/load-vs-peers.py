#!/usr/bin/env python3
"""freight load beside wrk and curl, against one nginx on 127.0.0.1: issue 18's three goals, interleaved.

  1. a 4 KiB file at 32 connections: freight load's requests/s over wrk's (goal >= 0.9x);
  2. a 1 GiB download: freight load's MiB/s over curl's (goal >= 1.0x), client CPU s/GiB beside curl's;
  3. a 1 GiB upload (nginx WebDAV PUT to disk): the same.

Each round runs every tool once, the first tool alternating from round to round; the ratio of each round is
paired, and the 95 % interval is a t interval on the rounds' log ratios (as the bench's paired-log-t). The CPU of
wrk and curl is the whole process's (user + system, from wait4); freight load's is its own measure over the run
(client.cpuSecondsPerGiB / cpuSecondsPerResponse in its JSON), without the .NET start-up.

With two or more CPUs, nginx runs on CPU 0 and every client (wrk, curl, freight load) on CPU 1 (--no-pin: wherever
the scheduler puts them). Unpinned, a client's threads land on nginx's core as the scheduler pleases, and the same
pair of runs read 0.79-1.10x from round to round (2026-11-27); pinned, each side owns a core, as on two machines, and
every client gets the same one.

Usage: scripts/load-vs-peers.py [--rounds N] [--seconds S] [--no-pin] [--out FILE.md]
Needs nginx, wrk and curl (scripts/install-peers.sh); builds the CLI through ./freight. Bounded: every run has a
duration or one request, and every child is killed on the way out.
"""
import argparse, json, math, os, resource, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FREIGHT = os.path.join(ROOT, "freight")
GIB = 1 << 30
MIB = 1 << 20
# t quantiles (two-sided 95 %) for n - 1 degrees of freedom, n = 2..16 rounds.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201,
       12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nginx_binary():
    for candidate in (shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit("load-vs-peers: nginx not found (scripts/install-peers.sh installs it)")


# CPU sets when pinned (main() fills them): the server's and the clients'.
SERVER_CPUS = None
CLIENT_CPUS = None


def pinned_to(cpus):
    """A preexec_fn that moves the child onto cpus before it runs (None: no pinning)."""
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


def start_nginx(work, port):
    """One process, one worker, sendfile on: the bench's peer configuration (src/Freight.Bench/Peers/Nginx.cs)."""
    conf = os.path.join(work, "nginx.conf")
    for d in ("www", "put", "tmp"):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    with open(conf, "w") as f:
        f.write(f"""
daemon off; master_process off; worker_processes 1; pid {work}/nginx.pid; error_log {work}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000000; keepalive_timeout 60s;
  client_body_temp_path {work}/put/.temp; proxy_temp_path {work}/tmp; fastcgi_temp_path {work}/tmp;
  uwsgi_temp_path {work}/tmp; scgi_temp_path {work}/tmp;
  server {{
    listen 127.0.0.1:{port};
    root {work}/www;
    location /put/ {{ root {work}; dav_methods PUT; create_full_put_path on; client_max_body_size 0; }}
  }}
}}
""")
    process = subprocess.Popen([nginx_binary(), "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=pinned_to(SERVER_CPUS))
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    sys.exit("load-vs-peers: nginx did not start (see its error.log)")


def timed(command, timeout):
    """Runs a child to its end; returns (wall seconds, child CPU seconds, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                          preexec_fn=pinned_to(CLIENT_CPUS))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def freight_load(arguments, work, timeout):
    result = os.path.join(work, "load.json")
    timed([FREIGHT, "load", *arguments, "--no-progress", "--json", result], timeout)
    with open(result) as f:
        row = json.load(f)["results"][0]
    if not row.get("verified", False):
        raise RuntimeError(f"freight load: not verified: {row.get('failure')}")
    return row


def wrk_small(url, seconds, connections):
    _, cpu, out = timed(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", url], seconds + 30)
    requests = next(int(line.split()[0]) for line in out.splitlines() if "requests in" in line)
    rate = next(float(line.split()[1]) for line in out.splitlines() if line.startswith("Requests/sec"))
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError("wrk: errors: " + out)
    return rate, cpu / requests


def load_small(url, seconds, connections, work):
    row = freight_load([url, "-c", str(connections), "-d", str(seconds), "--expect-status", "200"], work, seconds + 60)
    return row["requestsPerSecond"]["median"], row["client"]["cpuSecondsPerResponse"]


def curl_get(url):
    wall, cpu, out = timed(["curl", "-sS", "-o", "/dev/null", "-w", "%{size_download} %{speed_download}", url], 300)
    size, speed = out.split()
    if int(size) != GIB:
        raise RuntimeError(f"curl: {size} bytes, not {GIB}")
    return float(speed), cpu / (int(size) / GIB)


def curl_put(url, path):
    wall, cpu, out = timed(["curl", "-sS", "-o", "/dev/null", "-T", path, "-w", "%{http_code} %{size_upload} %{speed_upload}", url], 300)
    code, size, speed = out.split()
    if code not in ("201", "204") or int(size) != GIB:
        raise RuntimeError(f"curl -T: status {code}, {size} bytes")
    return float(speed), cpu / (int(size) / GIB)


def removed_after(work, name, put):
    """Runs one PUT after a sync, then removes the file it stored: each PUT then writes into page-cache frames the
    last one just freed, whichever client sent it. Until 2026-11-27 both PUTs of a round were removed at its end, so
    the second wrote while the first's 1 GiB was still dirty (the order effect of docs/results/2026-11-27-put-cost.md,
    which the bench's files suite removes the same way)."""
    subprocess.run(["sync"], check=False)
    try:
        return put()
    finally:
        path = os.path.join(work, "put", name)
        if os.path.exists(path):
            os.remove(path)


def process_cpu(pid):
    """utime + stime of a process so far, in seconds (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def with_server_cpu(pid, transfer):
    """Runs one 1 GiB transfer; returns its (rate, client CPU s/GiB) and nginx's CPU s/GiB over it."""
    before = process_cpu(pid)
    rate, client_cpu = transfer()
    return rate, client_cpu, process_cpu(pid) - before


def load_transfer(arguments, work):
    row = freight_load([*arguments, "-n", "1", "-c", "1"], work, 300)
    return row["bytesPerSecond"]["median"], row["client"]["cpuSecondsPerGiB"]


def interval(ratios):
    """Median ratio, and the 95 % t interval of the paired log ratios (None under two rounds)."""
    logs = [math.log(r) for r in ratios]
    if len(logs) < 2:
        return statistics.median(ratios), None
    mean, sd = statistics.mean(logs), statistics.stdev(logs)
    half = T95.get(len(logs) - 1, 1.96) * sd / math.sqrt(len(logs))
    return statistics.median(ratios), (math.exp(mean - half), math.exp(mean + half))


def verdict(goal, bounds):
    if bounds is None:
        return "no interval"
    return "met" if bounds[0] >= goal else "MISSED" if bounds[1] < goal else "inconclusive"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5, help="each 4 KiB run's duration")
    parser.add_argument("--no-pin", action="store_true", help="leave nginx and the clients wherever the scheduler puts them")
    parser.add_argument("--out", help="write the Markdown here too")
    options = parser.parse_args()
    global SERVER_CPUS, CLIENT_CPUS
    cpus = sorted(os.sched_getaffinity(0))
    if not options.no_pin and len(cpus) >= 2:
        SERVER_CPUS, CLIENT_CPUS = {cpus[0]}, {cpus[1]}
    for tool in ("wrk", "curl"):
        if not shutil.which(tool):
            sys.exit(f"load-vs-peers: {tool} not found (scripts/install-peers.sh installs it)")

    subprocess.run([FREIGHT, "--help"], stdout=subprocess.DEVNULL, check=False)  # builds the CLI once, outside the runs
    work = tempfile.mkdtemp(prefix="freight-load-vs-peers-")
    port = free_port()
    nginx = start_nginx(work, port)
    try:
        small = os.path.join(work, "www", "small.bin")
        big = os.path.join(work, "www", "big.bin")
        with open(small, "wb") as f:
            f.write(os.urandom(4096))
        with open(big, "wb") as f:
            for _ in range(GIB // (16 * MIB)):
                f.write(os.urandom(16 * MIB))
        base = f"http://127.0.0.1:{port}"
        rows = {"small": [], "get": [], "put": []}
        for round_number in range(options.rounds):
            peer_first = round_number % 2 == 0
            load_avg = os.getloadavg()[0]

            def pair(peer, ours):
                if peer_first:
                    a = peer()
                    return a, ours()
                b = ours()
                return peer(), b

            s = pair(lambda: wrk_small(f"{base}/small.bin", options.seconds, 32),
                     lambda: load_small(f"{base}/small.bin", options.seconds, 32, work))
            g = pair(lambda: with_server_cpu(nginx.pid, lambda: curl_get(f"{base}/big.bin")),
                     lambda: with_server_cpu(nginx.pid, lambda: load_transfer([f"{base}/big.bin"], work)))
            p = pair(lambda: removed_after(work, "curl.bin", lambda: with_server_cpu(nginx.pid, lambda: curl_put(f"{base}/put/curl.bin", big))),
                     lambda: removed_after(work, "load.bin", lambda: with_server_cpu(nginx.pid, lambda: load_transfer(
                         [f"{base}/put/load.bin", "-X", "PUT", "--file", big, "--expect-status", "201"], work))))
            for name, figures in (("small", s), ("get", g), ("put", p)):
                rows[name].append((round_number + 1, load_avg, figures[0], figures[1]))
            print(f"round {round_number + 1}/{options.rounds} done (load {load_avg:.2f})", file=sys.stderr, flush=True)

        placement = (f"nginx pinned to CPU {min(SERVER_CPUS)}, every client to CPU {min(CLIENT_CPUS)}" if SERVER_CPUS
                     else "not pinned")
        lines = [f"Command: `scripts/load-vs-peers.py --rounds {options.rounds} --seconds {options.seconds}"
                 f"{' --no-pin' if options.no_pin else ''}`; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                 f"{os.cpu_count()} CPUs, {placement}; nginx, wrk, curl on 127.0.0.1.", ""]
        sections = (("small", "4 KiB file, 32 connections: requests/s (goal ≥ 0.9× wrk)", "wrk", "req/s", "µs/request", 1, 1e6, 0.9),
                    ("get", "1 GiB download: MiB/s (goal ≥ 1.0× curl)", "curl", "MiB/s", "CPU s/GiB", MIB, 1, 1.0),
                    ("put", "1 GiB upload, nginx WebDAV PUT: MiB/s (goal ≥ 1.0× curl)", "curl -T", "MiB/s", "CPU s/GiB", MIB, 1, 1.0))
        for key, title, peer, unit, cost, divide, scale, goal in sections:
            lines += [f"## {title}", "", f"| round | load avg | {peer} {unit} | {peer} {cost} | freight load {unit} | freight load {cost} | ratio |",
                      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
            ratios = []
            for number, load_avg, theirs, ours in rows[key]:
                ratios.append(ours[0] / theirs[0])
                lines.append(f"| {number} | {load_avg:.2f} | {theirs[0] / divide:,.0f} | {theirs[1] * scale:.2f} | {ours[0] / divide:,.0f} | {ours[1] * scale:.2f} | {ratios[-1]:.3f} |")
            median, bounds = interval(ratios)
            text = f"[{bounds[0]:.3f}–{bounds[1]:.3f}]" if bounds else "(one round)"
            peer_cost = statistics.median(r[2][1] for r in rows[key]) * scale
            our_cost = statistics.median(r[3][1] for r in rows[key]) * scale
            lines += ["", f"Ratio: median {median:.3f}×, 95 % interval {text}, goal ≥ {goal}×: **{verdict(goal, bounds)}**. "
                      f"Client {cost}: {peer} {peer_cost:.2f}, freight load {our_cost:.2f} (medians)."]
            if key != "small":
                # The server's side of the same transfers: what nginx spent receiving or sending 1 GiB for each client.
                peer_server = statistics.median(r[2][2] for r in rows[key])
                our_server = statistics.median(r[3][2] for r in rows[key])
                lines[-1] += f" nginx CPU s/GiB: for {peer} {peer_server:.2f}, for freight load {our_server:.2f} (medians)."
            lines.append("")
        text = "\n".join(lines)
        print(text)
        if options.out:
            with open(options.out, "w") as f:
                f.write(text + "\n")
    finally:
        nginx.send_signal(signal.SIGTERM)
        try:
            nginx.wait(10)
        except subprocess.TimeoutExpired:
            nginx.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
