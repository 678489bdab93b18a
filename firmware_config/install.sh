#!/usr/bin/env bash
# Zatre Vision on a Raspberry Pi 4 or 5 (Raspberry Pi OS Trixie or Bookworm, 64 bit), in one
# command:
#
#   sudo ./firmware_config/install.sh
#
# Installs the OS packages (picamera2, venv, gpiozero, avahi), the system user
# "zatre" (groups video, gpio), a copy of this checkout in /opt/zatre/src, a venv at
# /opt/zatre/venv made with --system-site-packages (picamera2 and libcamera come from
# the OS) with the project and every package it needs, pinned, the settings in
# /etc/zatre, the systemd unit, the avahi announcement, the camera fragment of
# config.txt and the hardware watchdog; sets the host name (zatre, so phones open
# http://zatre.local); enables and (re)starts the service. Idempotent: a second run
# changes nothing and says so. Existing /etc/zatre/config.yaml and zatre.env are never
# overwritten.
#
# The release comes from /etc/os-release (VERSION_CODENAME) and the user space from
# `dpkg --print-architecture`: Python packages are installed from the release's lock file,
# `pip install --require-hashes -r firmware_config/locks/<release>.txt` (every package
# pinned, each wheel's sha256 checked; trixie: numpy 2.2, bookworm: numpy 1.24, each as the
# OS ships it, since the OS's picamera2 is built against it; the OpenCV and the onnxruntime
# that work with it on a Pi 4), then the project itself with --no-deps; an import check
# then prints one verdict. Another release, or a 32-bit (armhf) user space, is refused in
# one line before anything changes.
# `zatre` is linked into /usr/local/bin.
#
# Update: git pull in this checkout, then run this script again (it copies the new code,
# reinstalls the packages only when pyproject.toml or the lock file changed, and
# restarts the service). Back up first: sudo -u zatre zatre backup /var/lib/zatre/before-update.db
#
# Options:
#   --dry-run          print every command that would change something, change nothing
#   --prefix DIR       install the files under DIR (a chroot or test folder; also
#                      ZATRE_ROOT): no apt, no user, no venv, no systemctl; the host name
#                      goes into DIR/etc/hostname where that file exists
#   --no-service       do not enable or start the service
#   --hostname NAME    host name to set (default zatre: http://zatre.local)
#   --keep-hostname    leave the host name alone
#   --hotspot PASSWORD also set up the fallback Wi-Fi hotspot "Zatre" (off by default)
#   --uninstall        remove the service, the program, the files and config.txt lines this
#                      script put in place and the hotspot's connection; give the host its
#                      name back; keeps the settings (/etc/zatre) and games (/var/lib/zatre)
#   --purge            with --uninstall: remove the settings, the games and the user too
#   -h, --help
set -euo pipefail

APT_PACKAGES=(python3-picamera2 python3-venv python3-pip python3-gpiozero python3-lgpio
              avahi-daemon rsync)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FW="$SRC/firmware_config"

DRY_RUN=0
ROOT=${ZATRE_ROOT:-}
SERVICE=1
HOSTNAME_WANTED=zatre
HOTSPOT_PASSWORD=""
UNINSTALL=0
PURGE=0
CHANGES=0
# the releases with a lock file (firmware_config/locks/<codename>.txt)
RELEASES="trixie bookworm"
FLASH="flash Raspberry Pi OS (64-bit) Trixie with Raspberry Pi Imager"

usage() { sed -n '2,44p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
    --dry-run) DRY_RUN=1 ;;
    --prefix) ROOT=${2:?--prefix needs a folder}; shift ;;
    --prefix=*) ROOT=${1#--prefix=} ;;
    --no-service) SERVICE=0 ;;
    --hostname) HOSTNAME_WANTED=${2:?--hostname needs a name}; shift ;;
    --keep-hostname) HOSTNAME_WANTED="" ;;
    --hotspot) HOTSPOT_PASSWORD=${2:?--hotspot needs a password}; shift ;;
    --uninstall) UNINSTALL=1 ;;
    --purge) PURGE=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

ROOT=${ROOT%/}
if [ "$PURGE" = 1 ] && [ "$UNINSTALL" = 0 ]; then
    echo "install.sh: --purge goes with --uninstall" >&2
    exit 2
fi
SYSTEM=1  # apt, users, venv, hostname, systemctl: only on the real system
if [ -n "$ROOT" ]; then
    SYSTEM=0
fi

say() { printf 'install: %s\n' "$*"; }

# Run a command that changes the system (printed instead under --dry-run).
run() {
    CHANGES=$((CHANGES + 1))
    if [ "$DRY_RUN" = 1 ]; then
        printf '+ %s\n' "$*"
    else
        "$@"
    fi
}

# Install a file only when it differs (cmp): re-running changes nothing.
put() {  # put MODE SOURCE TARGET
    local mode=$1 src=$2 dest="$ROOT$3"
    if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
        return 0
    fi
    say "file $3"
    run install -D -m "$mode" "$src" "$dest"
}

# A settings file the user edits: installed once, never overwritten.
put_config() {  # put_config MODE SOURCE TARGET
    local dest="$ROOT$3"
    if [ -e "$dest" ]; then
        if ! cmp -s "$2" "$dest"; then
            say "keeping your $3 (the shipped example is $2)"
        fi
        return 0
    fi
    put "$@"
}

ensure_dir() {  # ensure_dir MODE PATH [OWNER]
    local dest="$ROOT$2"
    if [ ! -d "$dest" ]; then
        say "folder $2"
        run install -d -m "$1" "$dest"
    fi
    if [ "$SYSTEM" = 1 ] && [ -n "${3:-}" ] && [ -d "$dest" ] \
        && [ "$(stat -c %U "$dest")" != "$3" ]; then
        run chown "$3:$3" "$dest"
    fi
}

# Write TEXT as the whole of FILE (under ROOT); the dry run shows every line.
write_file() {  # write_file PATH TEXT
    CHANGES=$((CHANGES + 1))
    if [ "$DRY_RUN" = 1 ]; then
        printf '+ write %s:\n' "$ROOT$1"
        printf '%s\n' "$2" | sed 's/^/+     /'
    else
        install -d "$(dirname "$ROOT$1")"
        printf '%s\n' "$2" > "$ROOT$1"
    fi
}

# Give FILE (under ROOT) the text of NEW (a temporary file), keeping its owner and mode;
# the dry run shows each line removed (-) and added (+) instead.
replace_text() {  # replace_text PATH NEW
    local dest="$ROOT$1" old=/dev/null
    if [ -f "$dest" ]; then
        old=$dest
    fi
    if cmp -s "$old" "$2"; then
        return 0
    fi
    CHANGES=$((CHANGES + 1))
    if [ "$DRY_RUN" = 1 ]; then
        printf '+ edit %s:\n' "$dest"
        diff -U0 "$old" "$2" | tail -n +3 | grep -v '^@@' | sed 's/^\([-+]\)/+   \1 /' || true
    else
        install -d "$(dirname "$dest")"
        cat "$2" > "$dest"
    fi
}

# The host name now: the running system's, or a root's /etc/hostname (empty: none).
current_hostname() {
    if [ "$SYSTEM" = 1 ]; then
        hostname
    elif [ -f "$ROOT/etc/hostname" ]; then
        head -1 "$ROOT/etc/hostname"
    fi
}

# Set the host name (hostnamectl, or a root's /etc/hostname) and the 127.0.1.1 line of
# /etc/hosts that Raspberry Pi OS keeps for it.
set_hostname() {  # set_hostname NAME
    if [ "$SYSTEM" = 1 ]; then
        run hostnamectl set-hostname "$1"
    else
        write_file /etc/hostname "$1"
    fi
    if [ -f "$ROOT/etc/hosts" ]; then
        sed "s/^127\.0\.1\.1.*/127.0.1.1\t$1/" "$ROOT/etc/hosts" > "$TMP/hosts"
        replace_text /etc/hosts "$TMP/hosts"
    fi
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The block install adds to config.txt, and what uninstall removes, line for line.
CONFIG_TXT_BLOCK=$'\n[all]\n# Zatre Vision (camera)\ninclude zatre-camera.txt'
# Where install keeps the host name it replaced (uninstall puts it back).
HOSTNAME_BEFORE=/etc/zatre/hostname-before-zatre

if [ "$SYSTEM" = 1 ] && [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root (sudo $0), or try --dry-run" >&2
    exit 1
fi
# The release and the user space, before anything changes. On a Pi 4 or 5, 32-bit
# Raspberry Pi OS boots a 64-bit kernel (uname -m says aarch64): dpkg says armhf.
# ZATRE_OS_RELEASE names another os-release file (tests); with --prefix, the root's own
# /etc/os-release is read when it has one (a chroot), else the release is not checked.
OS_RELEASE=${ZATRE_OS_RELEASE:-$ROOT/etc/os-release}
CODENAME=""
ARCH=""
if [ "$UNINSTALL" = 0 ] && { [ "$SYSTEM" = 1 ] || [ -f "$OS_RELEASE" ]; }; then
    CODENAME=$( (sed -n 's/^VERSION_CODENAME=//p' "$OS_RELEASE" 2>/dev/null || true) \
        | tr -d '"' | head -1)
    ARCH=$(dpkg --print-architecture 2>/dev/null || uname -m)
    case "$ARCH" in
    arm64 | aarch64) ;;
    armhf | armel | arm*)
        echo "install.sh: this is a 32-bit system ($ARCH), which onnxruntime does not run on:" \
            "$FLASH and run this again." >&2
        exit 1 ;;
    *) say "warning: $ARCH is not 64-bit ARM (not a Pi); going on" ;;
    esac
    case " $RELEASES " in
    *" $CODENAME "*) ;;
    *) echo "install.sh: release '${CODENAME:-unknown}' ($OS_RELEASE) is not one this" \
        "installs on (trixie, bookworm): $FLASH and run this again." >&2
        exit 1 ;;
    esac
fi
LOCK_NAME=firmware_config/locks/${CODENAME:-bookworm}.txt
LOCK="$SRC/$LOCK_NAME"
ONNXRUNTIME_PIN=$(grep -Eo '^onnxruntime==[0-9.]+' "$LOCK" || echo onnxruntime)
NUMPY_PIN=$(grep -Eo '^numpy==[0-9.]+' "$LOCK" || echo numpy)
LOCK_COUNT=$(grep -Ec '^[a-z0-9._-]+==' "$LOCK" || true)
if [ "$SYSTEM" = 1 ] && ! grep -qs "Raspberry Pi" /proc/device-tree/model; then
    say "warning: this does not look like a Raspberry Pi; going on"
fi
if [ -n "$CODENAME" ]; then
    say "Raspberry Pi OS $CODENAME ($ARCH): versions from $LOCK_NAME"
fi

# -- uninstall ---------------------------------------------------------------------------------
remove() {  # remove PATH...: files or folders under ROOT that exist
    local p
    for p in "$@"; do
        if [ -e "$ROOT$p" ] || [ -L "$ROOT$p" ]; then
            say "remove $p"
            run rm -rf "$ROOT$p"
        fi
    done
}
if [ "$UNINSTALL" = 1 ]; then
    if [ "$SYSTEM" = 1 ] && systemctl list-unit-files zatre.service >/dev/null 2>&1; then
        run systemctl disable --now zatre.service || true
    fi
    # the hotspot's NetworkManager connection, before its helper goes
    if [ "$SYSTEM" = 1 ]; then
        if ${NMCLI:-nmcli} -t -f NAME connection show 2>/dev/null | grep -qx zatre-hotspot; then
            say "the hotspot's NetworkManager connection zatre-hotspot"
            run "${NMCLI:-nmcli}" connection delete zatre-hotspot
        fi
    else
        remove /etc/NetworkManager/system-connections/zatre-hotspot.nmconnection
    fi
    # the host name install replaced
    if [ -f "$ROOT$HOSTNAME_BEFORE" ]; then
        before=$(head -1 "$ROOT$HOSTNAME_BEFORE")
        if [ -n "$before" ] && [ "$(current_hostname)" != "$before" ]; then
            say "host name back to $before"
            set_hostname "$before"
            if [ "$SYSTEM" = 1 ] && systemctl is-active --quiet avahi-daemon 2>/dev/null; then
                run systemctl restart avahi-daemon
            fi
        fi
        remove "$HOSTNAME_BEFORE"
    fi
    remove /etc/systemd/system/zatre.service /etc/systemd/system.conf.d/zatre-watchdog.conf \
        /etc/avahi/services/zatre.service /usr/local/sbin/zatre-hotspot /usr/local/bin/zatre \
        /opt/zatre
    for boot in /boot/firmware /boot; do
        remove "$boot/zatre-camera.txt"
        if [ -f "$ROOT$boot/config.txt" ]; then
            # the block install added ([all], the comment, the include, the blank line
            # before them), and any stray line of an older install
            awk 'BEGIN { n = 0 }
                 { line[++n] = $0 }
                 END {
                     for (i = 1; i <= n; i++) {
                         if (line[i] == "[all]" && line[i + 1] == "# Zatre Vision (camera)" \
                             && line[i + 2] == "include zatre-camera.txt") {
                             if (kept > 0 && out[kept] == "") kept--
                             i += 2; continue
                         }
                         if (line[i] == "# Zatre Vision (camera)" \
                             || line[i] == "include zatre-camera.txt") continue
                         out[++kept] = line[i]
                     }
                     for (i = 1; i <= kept; i++) print out[i]
                 }' "$ROOT$boot/config.txt" > "$TMP/config.txt"
            if ! cmp -s "$ROOT$boot/config.txt" "$TMP/config.txt"; then
                say "config.txt: the zatre-camera.txt include"
                replace_text "$boot/config.txt" "$TMP/config.txt"
            fi
        fi
    done
    if [ "$PURGE" = 1 ]; then
        remove /etc/zatre /var/lib/zatre
        if [ "$SYSTEM" = 1 ] && id -u zatre >/dev/null 2>&1; then
            run userdel zatre
        fi
    else
        say "kept /etc/zatre (settings) and /var/lib/zatre (games): --purge removes them"
    fi
    if [ "$SYSTEM" = 1 ] && [ "$CHANGES" -gt 0 ]; then
        run systemctl daemon-reload
    fi
    if [ "$DRY_RUN" = 1 ]; then
        say "dry run: $CHANGES change(s) would be made"
    else
        say "uninstalled ($CHANGES change(s)); the hardware watchdog line in config.txt went too"
    fi
    exit 0
fi

# -- 1. OS packages ----------------------------------------------------------------------
if [ "$SYSTEM" = 1 ]; then
    missing=()
    for pkg in "${APT_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "apt packages: ${missing[*]}"
        run apt-get update
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            "${missing[@]}"
    fi
fi

# -- 2. user and groups ----------------------------------------------------------------
if [ "$SYSTEM" = 1 ]; then
    for group in video gpio; do
        if ! getent group "$group" >/dev/null; then
            run groupadd --system "$group"
        fi
    done
    if ! id -u zatre >/dev/null 2>&1; then
        say "system user zatre"
        run useradd --system --home-dir /var/lib/zatre --no-create-home \
            --shell /usr/sbin/nologin --user-group --groups video,gpio zatre
    else
        for group in video gpio; do
            if ! id -nG zatre | tr ' ' '\n' | grep -qx "$group"; then
                run usermod -a -G "$group" zatre
            fi
        done
    fi
fi

# -- 3. folders ------------------------------------------------------------------------------
ensure_dir 0755 /opt/zatre
ensure_dir 0755 /etc/zatre
ensure_dir 0750 /var/lib/zatre zatre

# -- 4. the program: a copy of this checkout and a venv -------------------------------
if [ "$SYSTEM" = 1 ]; then
    # rsync keeps modification times: a second run copies nothing (--itemize says so).
    copied=$(rsync -a --delete --dry-run --itemize-changes --exclude .git --exclude '.venv*' \
        --exclude data --exclude '__pycache__' --exclude '*.egg-info' "$SRC/" /opt/zatre/src/ \
        2>/dev/null || echo "new")
    if [ -n "$copied" ]; then
        say "program files in /opt/zatre/src"
        run rsync -a --delete --exclude .git --exclude '.venv*' --exclude data \
            --exclude '__pycache__' --exclude '*.egg-info' "$SRC/" /opt/zatre/src/
    fi
    if [ ! -x /opt/zatre/venv/bin/python ]; then
        say "venv /opt/zatre/venv (with the OS's picamera2 and libcamera)"
        run python3 -m venv --system-site-packages /opt/zatre/venv
    fi
    # Reinstall only when the dependencies change (the code itself is an editable
    # install of /opt/zatre/src, so a copy of new code needs no pip run).
    # Every dependency comes from the lock, each wheel checked against its sha256; a
    # package the OS already has at the locked version (numpy, through
    # --system-site-packages) is kept. The project is then installed on its own (a local
    # folder has no hash to check): no dependencies, and no build isolation, so the
    # setuptools that builds it is the lock's too.
    stamp="$(cat "$SRC/pyproject.toml" "$LOCK" | sha256sum | cut -d' ' -f1)"
    if [ "$(cat /opt/zatre/.installed 2>/dev/null)" != "$stamp" ]; then
        say "python packages ($LOCK_COUNT from $LOCK_NAME: $ONNXRUNTIME_PIN, $NUMPY_PIN; then the project)"
        run /opt/zatre/venv/bin/pip install --quiet --upgrade pip
        run /opt/zatre/venv/bin/pip install --quiet --require-hashes -r "/opt/zatre/src/$LOCK_NAME"
        run /opt/zatre/venv/bin/pip install --quiet --no-deps --no-build-isolation \
            -e /opt/zatre/src
        write_file /opt/zatre/.installed "$stamp"
    fi
    # one line: do picamera2, OpenCV and onnxruntime import with these versions?
    if [ "$DRY_RUN" = 1 ]; then
        run /opt/zatre/venv/bin/python -m zatre_vision.import_check numpy cv2 onnxruntime picamera2
    elif ! verdict=$(/opt/zatre/venv/bin/python -m zatre_vision.import_check \
        numpy cv2 onnxruntime picamera2); then
        say "$verdict"
        echo "install.sh: the libraries do not import (above); the service is not started" >&2
        exit 1
    else
        say "$verdict"
    fi
fi
# `zatre` on PATH (zatre doctor, zatre backup)
if [ "$(readlink "$ROOT/usr/local/bin/zatre" 2>/dev/null)" != /opt/zatre/venv/bin/zatre ]; then
    say "command /usr/local/bin/zatre"
    run install -d "$ROOT/usr/local/bin"
    run ln -sfn /opt/zatre/venv/bin/zatre "$ROOT/usr/local/bin/zatre"
fi

# -- 5. settings, unit, avahi, camera, watchdog ------------------------------------------------
# The settings may hold the PIN: readable by root and the service's group only.
put_config 0640 "$FW/etc/zatre/config.yaml" /etc/zatre/config.yaml
put_config 0640 "$FW/etc/zatre/zatre.env" /etc/zatre/zatre.env
for f in /etc/zatre/config.yaml /etc/zatre/zatre.env; do
    if [ -f "$ROOT$f" ] && [ "$(stat -c %a "$ROOT$f")" != 640 ]; then
        say "permissions 0640 on $f"
        run chmod 0640 "$ROOT$f"
    fi
    if [ "$SYSTEM" = 1 ] && [ -f "$f" ] && [ "$(stat -c %G "$f")" != zatre ]; then
        run chgrp zatre "$f"
    fi
done
unit_before=$(cat "$ROOT/etc/systemd/system/zatre.service" 2>/dev/null || true)
put 0644 "$FW/etc/systemd/system/zatre.service" /etc/systemd/system/zatre.service
put 0644 "$FW/etc/systemd/system.conf.d/zatre-watchdog.conf" \
    /etc/systemd/system.conf.d/zatre-watchdog.conf
# The announcement carries the port the settings give (server.port, default 8000).
port=$(awk '/^[^ #]/ { in_server = ($1 == "server:") }
            in_server && $1 == "port:" { print $2; exit }' "$ROOT/etc/zatre/config.yaml" \
       2>/dev/null | tr -d '"'"'" || true)
case "$port" in '' | *[!0-9]*) port=8000 ;; esac
avahi_tmp="$TMP/avahi.service"
sed "s|<port>[0-9]*</port>|<port>$port</port>|" "$FW/etc/avahi/services/zatre.service" \
    > "$avahi_tmp"
put 0644 "$avahi_tmp" /etc/avahi/services/zatre.service
put 0755 "$FW/hotspot/zatre-hotspot" /usr/local/sbin/zatre-hotspot

boot=/boot/firmware
if [ -d "$ROOT/boot/firmware" ] || [ "$SYSTEM" = 0 ]; then
    boot=/boot/firmware
elif [ -d "$ROOT/boot" ] && [ -f "$ROOT/boot/config.txt" ]; then
    boot=/boot  # Bullseye and older
fi
put 0644 "$FW/boot/firmware/zatre-camera.txt" "$boot/zatre-camera.txt"
if ! grep -qsx "include zatre-camera.txt" "$ROOT$boot/config.txt"; then
    say "config.txt: include zatre-camera.txt (reboot once for the camera)"
    # [all]: the include must not land in whatever [section] (e.g. [cm4]) comes last
    { cat "$ROOT$boot/config.txt" 2>/dev/null || true; printf '%s\n' "$CONFIG_TXT_BLOCK"; } \
        > "$TMP/config.txt"
    replace_text "$boot/config.txt" "$TMP/config.txt"
fi

# -- 6. host name: http://zatre.local ------------------------------------------------------------
host_now=$(current_hostname)
if [ -n "$HOSTNAME_WANTED" ] && [ -n "$host_now" ] && [ "$host_now" != "$HOSTNAME_WANTED" ]; then
    say "host name $HOSTNAME_WANTED, was $host_now (phones open http://$HOSTNAME_WANTED.local)"
    if [ ! -f "$ROOT$HOSTNAME_BEFORE" ]; then  # the first name only: uninstall restores it
        write_file "$HOSTNAME_BEFORE" "$host_now"
    fi
    set_hostname "$HOSTNAME_WANTED"
    if [ "$SYSTEM" = 1 ] && systemctl is-active --quiet avahi-daemon 2>/dev/null; then
        run systemctl restart avahi-daemon
    fi
fi

# -- 7. hotspot (optional) -----------------------------------------------------------------------
if [ "$SYSTEM" = 1 ] && [ -n "$HOTSPOT_PASSWORD" ]; then
    if ! nmcli -t -f NAME connection show 2>/dev/null | grep -qx zatre-hotspot; then
        run /usr/local/sbin/zatre-hotspot enable "$HOTSPOT_PASSWORD"
    fi
fi

# -- 8. the service -------------------------------------------------------------------------------
if [ "$SYSTEM" = 1 ] && [ "$SERVICE" = 1 ]; then
    if [ "$unit_before" != "$(cat "$FW/etc/systemd/system/zatre.service")" ]; then
        run systemctl daemon-reload
    fi
    if ! systemctl is-enabled --quiet zatre.service 2>/dev/null; then
        run systemctl enable zatre.service
    fi
    if [ "$CHANGES" -gt 0 ] || ! systemctl is-active --quiet zatre.service 2>/dev/null; then
        run systemctl restart zatre.service
    fi
fi

if [ "$CHANGES" = 0 ]; then
    say "nothing to do: everything is installed and up to date"
elif [ "$DRY_RUN" = 1 ]; then
    say "dry run: $CHANGES change(s) would be made"
else
    say "done ($CHANGES change(s))"
    if [ "$SYSTEM" = 1 ]; then
        say "check it: sudo -u zatre zatre doctor --no-camera --config /etc/zatre/config.yaml"
        say "then open http://${HOSTNAME_WANTED:-$(hostname)}.local on a phone"
    fi
fi
