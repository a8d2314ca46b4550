# Sourced by the benchmark scripts: serves a folder with Debian's nginx (1 worker, no logs) on a
# free 127.0.0.1 port. Usage: loopback_nginx WWW_DIR WORK_DIR; sets nginx_port and nginx_pid and
# returns once a HEAD of / answers. The caller kills "$nginx_pid" when done (e.g. in a trap).
loopback_nginx() {
  local www="$1" work="$2"
  chmod 755 "$work" "$www"  # nginx's worker runs as nobody when started by root
  nginx_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 100000;
  types { image/jpeg jpg; image/png png; image/webp webp; }
  server { listen 127.0.0.1:$nginx_port; root $www; }
}
CONF
  nginx -c "$work/nginx.conf" -p "$work" &
  nginx_pid=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$nginx_port/" && return 0
    sleep 0.1
  done
  echo "nginx did not start: $(tail -3 "$work/nginx-error.log" 2>/dev/null)" >&2
  return 1
}
