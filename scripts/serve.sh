#!/usr/bin/env bash
# Builds Paraplan and serves the web calculator on http://127.0.0.1:5173/ until stopped.
# Installs what it needs; safe to run again.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

./scripts/build.sh
echo "Paraplan is at http://127.0.0.1:5173/ (Ctrl-C stops it)"
cd web
exec npx vite preview --host 127.0.0.1 --port 5173 --strictPort
