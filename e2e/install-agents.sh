#!/usr/bin/env bash
# Installs the agents pinned in e2e/agents.txt into a cache folder outside the
# repo, one folder per package@version, so the e2e tests can run the real
# binaries. Already-installed versions are skipped; a failed download is
# retried a few times. Prints where each agent is and its version.
#
#   RUNAWAY_E2E_CACHE   cache root (default: $HOME/.cache/runaway-e2e)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${RUNAWAY_E2E_CACHE:-$HOME/.cache/runaway-e2e}"
mkdir -p "$cache"

# The agents write into their homes even for --version (Codex makes
# ~/.codex/tmp), and so do their npm install scripts (OpenCode's postinstall
# runs `opencode --version`, which makes ~/.config/opencode): npm and the
# agents run with every home in a scratch folder, never the caller's. npm
# keeps reading the caller's npmrc (a registry or proxy set there) and
# caches its downloads beside the agents.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -m 700 "$scratch/.run"
npmrc="${NPM_CONFIG_USERCONFIG:-${npm_config_userconfig:-$HOME/.npmrc}}"
in_scratch() {
  env -u OPENCODE_CONFIG -u OPENCODE_CONFIG_DIR HOME="$scratch" USERPROFILE="$scratch" \
    CODEX_HOME="$scratch/.codex" CLAUDE_CONFIG_DIR="$scratch/.claude" GEMINI_CLI_HOME="$scratch" \
    COPILOT_HOME="$scratch/.copilot" QWEN_HOME="$scratch/.qwen" COPILOT_AUTO_UPDATE=false \
    XDG_CONFIG_HOME="$scratch/.config" XDG_DATA_HOME="$scratch/.local/share" \
    XDG_STATE_HOME="$scratch/.local/state" XDG_CACHE_HOME="$scratch/.cache" XDG_BIN_HOME="$scratch/.local/bin" \
    XDG_RUNTIME_DIR="$scratch/.run" \
    npm_config_userconfig="$npmrc" npm_config_cache="$cache/.npm" "$@"
}

# The folder name for a pin: "@openai/codex@0.169.0" -> "openai-codex@0.169.0".
dir_for() {
  local pin="$1"
  pin="${pin#@}"
  echo "${pin//\//-}"
}

# The binary each package installs.
bin_for() {
  case "$1" in
    @anthropic-ai/claude-code@*) echo claude ;;
    @openai/codex@*) echo codex ;;
    opencode-ai@*) echo opencode ;;
    @google/gemini-cli@*) echo gemini ;;
    @qwen-code/qwen-code@*) echo qwen ;;
    @github/copilot@*) echo copilot ;;
    *) echo "install-agents.sh: unknown package $1" >&2; return 1 ;;
  esac
}

grep -v '^[[:space:]]*\(#\|$\)' "$here/agents.txt" | while read -r pin; do
  dest="$cache/$(dir_for "$pin")"
  bin="$(bin_for "$pin")"
  exe="$dest/node_modules/.bin/$bin"
  if [ -x "$exe" ] && [ -f "$dest/.complete" ]; then
    echo "install-agents: $pin already in $dest"
  else
    start=$(date +%s)
    for i in 1 2 3 4; do
      # A half-finished install is thrown away, so a retry starts clean.
      rm -rf "$dest" && mkdir -p "$dest"
      if in_scratch npm install --prefix "$dest" --no-audit --no-fund --no-save --loglevel=error "$pin" >"$dest.log" 2>&1 \
        && in_scratch "$exe" --version >/dev/null 2>&1; then
        touch "$dest/.complete"
        break
      fi
      echo "install-agents: installing $pin failed (try $i):" >&2
      tail -n 20 "$dest.log" >&2
      if [ "$i" = 4 ]; then exit 1; fi
      sleep $((i * 10))
    done
    echo "install-agents: installed $pin into $dest in $(( $(date +%s) - start ))s"
  fi
  # The version is on stdout; warnings (Codex: "could not create PATH
  # aliases" when CODEX_HOME does not exist yet) go to stderr.
  version="$(in_scratch "$exe" --version 2>/dev/null | head -n 1 || true)"
  [ -n "$version" ] || version="$(in_scratch "$exe" --version 2>&1 | head -n 1 || true)"
  echo "install-agents: $bin $version ($exe)"
done
