#!/bin/sh
# SPDX-License-Identifier: MIT
# lava-up.sh -- a single-host LAVA 2023.01 (Debian 12 packages) for the LAVA
# tests, with no systemd: postgresql, gunicorn (REST API on 127.0.0.1:8000),
# lava-publisher, lava-scheduler, lava-worker and two devices of type `ssh`
# (both an sshd on 127.0.0.1:$LAVA_SSH_PORT that LAVA logs into as root).
# Run as root with LAVA_CI_DIR an absolute directory (a temp dir in CI).
# Idempotent: when the API already answers with the token it only prints the
# environment.  Prints BISECTD_TEST_LAVA_URL=... and BISECTD_TEST_LAVA_TOKEN=...
# as its last two lines, and writes them to $LAVA_CI_DIR/env.
set -eu
W=${LAVA_CI_DIR:?LAVA_CI_DIR must be an absolute directory}
TOKEN=${LAVA_TOKEN:-bisectdtesttoken0123456789abcdefgh}
SSH_PORT=${LAVA_SSH_PORT:-22922}
WORKER=${LAVA_WORKER:-bw0}
DEVICES=${LAVA_DEVICES:-bssh01 bssh02}   # all the same sshd: jobs run side by side
API=http://127.0.0.1:8000
export DEBIAN_FRONTEND=noninteractive
T0=$(date +%s)
say() { echo "lava-up [+$(( $(date +%s) - T0 ))s] $*" >&2; }
emit() {
  printf 'BISECTD_TEST_LAVA_URL=%s\nBISECTD_TEST_LAVA_TOKEN=%s\n' "$API" "$TOKEN" > "$W/env"
  cat "$W/env"
}
mkdir -p "$W/pids" "$W/ssh" "$W/logs"

alive() { [ -f "$W/pids/$1.pid" ] && kill -0 "$(cat "$W/pids/$1.pid")" 2>/dev/null; }

if command -v curl >/dev/null 2>&1 && alive scheduler &&
   curl -sf -m 5 -H "Authorization: Token $TOKEN" "$API/api/v0.2/workers/$WORKER/" 2>/dev/null |
   grep -q '"state":"Online"'; then
  say "already up"
  emit; exit 0
fi
# The services drop privileges to lavaserver and must reach their log
# files: a private directory from mktemp -d (0700) would stop the
# scheduler at its first log rotation check, leaving every job Submitted.
chmod 0755 "$W"

say "packages"
need=""
for p in postgresql openssh-server openssh-client curl ca-certificates lava-server lava-dispatcher; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need="$need $p"
done
if [ -n "$need" ]; then
  apt-get update -q >&2
  # postgresql first and running: lava-server's postinst creates its database.
  apt-get install -y -q --no-install-recommends postgresql openssh-server openssh-client curl ca-certificates >&2
fi
pg_ctlcluster 15 main start 2>/dev/null || true
pg_isready -q -t 30
if [ -n "$need" ]; then
  apt-get install -y -q --no-install-recommends lava-server lava-dispatcher >&2
fi
su postgres -c "psql -Atc \"select 1 from pg_database where datname='lavaserver'\"" | grep -q 1 \
  || python3 /usr/share/lava-server/postinst.py >&2

say "settings"
cat > /etc/lava-server/settings.d/01-bisectd-tests.yaml <<'EOT'
EVENT_NOTIFICATION: true
EVENT_SOCKET: "tcp://127.0.0.1:5500"
EOT
chown lavaserver:lavaserver /etc/lava-server/settings.d/01-bisectd-tests.yaml
chmod 640 /etc/lava-server/settings.d/01-bisectd-tests.yaml
# The scheduler's fallback poll is 20 s; 2 s keeps back-to-back jobs short.
sed -i 's/^INTERVAL = 20$/INTERVAL = 2/' \
  /usr/lib/python3/dist-packages/lava_server/management/commands/lava-scheduler.py

say "ssh device on 127.0.0.1:$SSH_PORT"
S=$W/ssh
[ -f "$S/hostkey" ] || ssh-keygen -q -t ed25519 -N '' -f "$S/hostkey"
[ -f "$S/id_lava" ] || ssh-keygen -q -t ed25519 -N '' -f "$S/id_lava"
cp "$S/id_lava.pub" "$S/authorized_keys"; chmod 600 "$S/authorized_keys" "$S/id_lava"
cat > "$S/sshd_config" <<EOT
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $S/hostkey
PidFile $W/pids/sshd.pid
AuthorizedKeysFile $S/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
PrintMotd no
Subsystem sftp internal-sftp
SetEnv HOME=$S/home
EOT
# Debian's bash reads ~/.bashrc for every ssh login, and this machine's
# root may have a slow or locked one (a pyenv rehash waits up to 60 s for
# a lock that a cancelled job's shell left behind): LAVA's login would time
# out.  The device's sessions get an empty home of their own.
mkdir -p "$S/home" /run/sshd
if ! { [ -f "$W/pids/sshd.pid" ] && kill -0 "$(cat "$W/pids/sshd.pid")" 2>/dev/null; }; then
  /usr/sbin/sshd -f "$S/sshd_config" -E "$W/sshd.log"
fi

say "services"
L=$W/logs
cd /
chown lavaserver:lavaserver "$L"
if ! alive publisher; then
  setsid /usr/bin/lava-server manage lava-publisher --level INFO --log-file "$L/publisher.log" \
    --host 127.0.0.1 --port 8001 </dev/null >"$L/publisher.out" 2>&1 &
  echo $! > "$W/pids/publisher.pid"
fi
if ! curl -sf -o /dev/null -m 3 "$API/api/v0.2/"; then
  setsid /usr/bin/gunicorn3 lava_server.wsgi --log-level INFO --log-file "$L/gunicorn.log" \
    -u lavaserver -g lavaserver --worker-class eventlet --workers 2 --bind 127.0.0.1:8000 \
    --pid "$W/pids/gunicorn.pid" </dev/null >"$L/gunicorn.out" 2>&1 &
fi
if ! alive scheduler; then
  setsid /usr/bin/lava-server manage lava-scheduler --level INFO --log-file "$L/scheduler.log" \
    --event-url tcp://127.0.0.1:5500 </dev/null >"$L/scheduler.out" 2>&1 &
  echo $! > "$W/pids/scheduler.pid"
fi
i=0
until curl -sf -o /dev/null "$API/api/v0.2/"; do
  i=$((i+1)); [ $i -lt 180 ] || { say "the REST API did not come up"; exit 1; }; sleep 0.5
done

say "user, token, device type, worker, device"
M="lava-server manage"
$M users add admin --superuser --staff --passwd admin --email admin@example.com >/dev/null 2>&1 || true
$M tokens list --user admin | grep -q "$TOKEN" || $M tokens add --user admin --secret "$TOKEN" --description bisectd-tests >/dev/null
$M device-types list | grep -q '^\* ssh ' || $M device-types add ssh
$M workers details "$WORKER" >/dev/null 2>&1 || $M workers add "$WORKER"
WTOKEN=$($M workers details "$WORKER" | awk '/^token/ {print $3}')
for DEVICE in $DEVICES; do
  cat > "/etc/lava-server/dispatcher-config/devices/$DEVICE.jinja2" <<EOT
{% extends 'ssh.jinja2' %}
{% set ssh_host = '127.0.0.1' %}
{% set ssh_port = $SSH_PORT %}
{% set ssh_user = 'root' %}
{% set ssh_identity_file = '$S/id_lava' %}
{% block schroot %}{% endblock schroot %}
EOT
  chown lavaserver:lavaserver "/etc/lava-server/dispatcher-config/devices/$DEVICE.jinja2"
  $M devices details "$DEVICE" >/dev/null 2>&1 || $M devices add --device-type ssh --worker "$WORKER" "$DEVICE"
  $M devices update --health GOOD "$DEVICE"
done

say "worker"
if ! { [ -f "$W/pids/worker.pid" ] && kill -0 "$(cat "$W/pids/worker.pid")" 2>/dev/null; }; then
  setsid /usr/bin/lava-worker --level INFO --url "$API/" --ws-url http://127.0.0.1:8001/ws/ \
    --name "$WORKER" --token "$WTOKEN" --ping-interval 2 --job-log-interval 1 \
    --log-file "$L/worker.log" </dev/null >"$L/worker.out" 2>&1 &
  echo $! > "$W/pids/worker.pid"
fi
i=0
until curl -sf -H "Authorization: Token $TOKEN" "$API/api/v0.2/workers/$WORKER/" | grep -q '"state":"Online"'; do
  i=$((i+1)); [ $i -lt 120 ] || { say "the worker did not come online"; exit 1; }; sleep 0.5
done
say "a first job, to prove the scheduler, the worker and the device"
smoke_field() { python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1]) or "")' "$1"; }
SMOKE=$(python3 -c 'import json,sys; print(json.dumps({"definition": sys.stdin.read()}))' <<EOT
device_type: ssh
job_name: bisectd-lava-up-smoke
timeouts:
  job: {minutes: 3}
  action: {minutes: 2}
  connection: {minutes: 1}
priority: high
visibility: public
actions:
- deploy:
    to: ssh
    os: debian
    timeout: {minutes: 1}
- boot:
    method: ssh
    connection: ssh
    prompts:
    - 'root@[^:]*:[^#]*#'
    timeout: {minutes: 1}
- test:
    timeout: {minutes: 1}
    definitions:
    - repository:
        metadata:
          format: Lava-Test Test Definition 1.0
          name: smoke
          description: "lava-up smoke"
        run:
          steps:
          - lava-test-case smoke --result pass --measurement 1 --units x
      from: inline
      name: smoke
      path: inline/smoke.yaml
EOT
)
JOB=$(printf '%s' "$SMOKE" | curl -sf -X POST -H "Authorization: Token $TOKEN" \
  -H 'Content-Type: application/json' --data @- "$API/api/v0.2/jobs/" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["job_ids"][0])') ||
  { say "the smoke job was refused"; exit 1; }
i=0
while :; do
  J=$(curl -sf -H "Authorization: Token $TOKEN" "$API/api/v0.2/jobs/$JOB/" || echo '{}')
  [ "$(printf '%s' "$J" | smoke_field state)" = Finished ] && break
  i=$((i+1))
  if [ $i -ge 360 ] || ! alive scheduler; then
    say "smoke job $JOB: $(printf '%s' "$J" | smoke_field state); scheduler log:"
    tail -n 20 "$L/scheduler.log" "$L/scheduler.out" >&2 || true
    exit 1
  fi
  sleep 0.5
done
H=$(printf '%s' "$J" | smoke_field health)
if [ "$H" != Complete ]; then
  say "smoke job $JOB ended $H: $(printf '%s' "$J" | smoke_field failure_comment)"
  tail -n 20 "$L/worker.log" >&2 || true
  exit 1
fi
say "up: $API devices $DEVICES (type ssh), smoke job $JOB Complete"
emit
