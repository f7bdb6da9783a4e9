#!/bin/sh
# The installed command (package.json "bin"). `show` and `neighbor` are relayed to the speaker's
# control socket as a `cli` request (docs/control-api.md): the speaker runs the very code the
# Node client runs and sends back its output, so a query costs a shell, a connector and two awks
# instead of a Node start. Help, every other command, and any case this script cannot be sure
# of run the Node CLI beside it (ovn-bgp-speaker.cjs), which prints the same.
#
# Connectors, in this order: socat, then OpenBSD netcat as Debian names it (nc.openbsd -U);
# other netcats cannot all talk to a unix socket, so with neither Node runs the command.

here=$0
[ -L "$here" ] && here=$(readlink -f -- "$here")
case $here in
*/*) here=${here%/*} ;;
*) here=. ;;
esac

node_cli() {
  exec node "$here/ovn-bgp-speaker.cjs" "$@"
}

# Exit status of the decoder when the answer is not a CLI reply (nothing at all, a speaker
# without `cli`, `busy`, an answer too long for the speaker to format): nothing was printed,
# and Node runs the command.
NOT_SERVED=125

# The socket as show.ts finds it: the last --socket PATH or --socket=PATH, else
# $OVN_BGP_SPEAKER_SOCKET (even when empty), else the default. Fails where Node's reading
# could differ or the connector could misread the path: `--`, a value starting with a dash,
# characters socat takes as address syntax.
find_socket() {
  socket=${OVN_BGP_SPEAKER_SOCKET-/run/ovn-bgp-speaker/control.sock}
  while [ $# -gt 0 ]; do
    case $1 in
    -- | -h | --help) return 1 ;;
    --socket)
      [ $# -ge 2 ] || return 1
      socket=$2
      shift
      ;;
    --socket=*) socket=${1#--socket=} ;;
    esac
    shift
  done
  case $socket in
  '' | -* | *[!A-Za-z0-9_./@+-]*) return 1 ;;
  esac
}

# The request line: `cli` and each argument double-quoted, \ " newline CR tab escaped. Each
# argument gets a leading x, dropped in awk, so no awk takes one for an option or an assignment.
request() {
  for arg; do
    set -- "$@" "x$arg"
    shift
  done
  LC_ALL=C awk 'BEGIN {
    line = "cli"
    for (i = 1; i < ARGC; i++) {
      a = ARGV[i]; q = ""
      for (j = 2; j <= length(a); j++) {
        c = substr(a, j, 1)
        if (c == "\\") c = "\\\\"
        else if (c == "\"") c = "\\\""
        else if (c == "\n") c = "\\n"
        else if (c == "\r") c = "\\r"
        else if (c == "\t") c = "\\t"
        q = q c
      }
      line = line " \"" q "\""
    }
    print line
    exit
  }' "$@"
}

# The reply: `1 TEXT` to stdout, `2 TEXT` to stderr, `exit N` the status. Anything else as the
# first line, or no line at all, is NOT_SERVED; lines but no status, a cut answer (status 1).
reply() {
  LC_ALL=C awk -v socket="$socket" -v not_served="$NOT_SERVED" '
    NR == 1 && !(/^[12] / || /^exit [0-9]+$/) { served = 0; exit }
    { served = 1; t = substr($0, 1, 2) }
    t == "1 " { print substr($0, 3); next }
    t == "2 " { print substr($0, 3) > "/dev/stderr"; next }
    /^exit [0-9]+$/ { status = substr($0, 6) + 0; done = 1; exit }
    { print "ovn-bgp-speaker: " socket " answered a line that is not a CLI reply" > "/dev/stderr"; bad = 1; exit }
    END {
      if (!served) exit not_served
      if (done) exit status
      if (NR > 0 && !bad) print "ovn-bgp-speaker: " socket " closed the connection before answering" > "/dev/stderr"
      exit 1
    }'
}

case ${1-} in
show | neighbor) ;;
*) node_cli "$@" ;;
esac
find_socket "$@" || node_cli "$@"

if command -v socat >/dev/null 2>&1; then
  # -t: how long a silent speaker is waited for once the request is sent (the Node client's 10 s).
  connect() { socat -t 10 - "UNIX-CONNECT:$socket" 2>/dev/null; }
elif command -v nc.openbsd >/dev/null 2>&1; then
  # -N: send EOF after the request; -w: give up on a speaker silent for 10 s.
  connect() { nc.openbsd -N -w 10 -U "$socket" 2>/dev/null; }
else
  node_cli "$@"
fi

request "$@" | connect | reply
status=$?
[ "$status" -eq "$NOT_SERVED" ] && node_cli "$@"
exit "$status"
