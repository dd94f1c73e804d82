#!/usr/bin/env node
// The `falseok` command of the npm package: it runs the prebuilt binary of
// the platform package npm installed beside it (one optional dependency per
// platform, as esbuild ships its binary), with the same arguments, standard
// streams and exit code. `cargo xtask dist` copies this file into the package
// and writes its package.json (docs/install.md).
"use strict";

const { spawnSync } = require("child_process");
const path = require("path");

// Linux: a glibc system takes the glibc build first and the static musl build
// next; a musl system (Alpine) takes the musl build.
function libcs() {
  if (process.platform !== "linux") return [null];
  let glibc = false;
  try {
    const report = process.report && process.report.getReport();
    glibc = Boolean(report && report.header && report.header.glibcVersionRuntime);
  } catch (_) {
    glibc = false;
  }
  return glibc ? ["gnu", "musl"] : ["musl"];
}

function candidates() {
  const base = `@falseok/${process.platform}-${process.arch}`;
  return libcs().map((libc) => (libc ? `${base}-${libc}` : base));
}

function binary() {
  const exe = process.platform === "win32" ? "falseok.exe" : "falseok";
  const tried = [];
  for (const name of candidates()) {
    tried.push(name);
    try {
      const manifest = require.resolve(`${name}/package.json`);
      return path.join(path.dirname(manifest), "bin", exe);
    } catch (_) {
      // Not installed for this platform: try the next one.
    }
  }
  process.stderr.write(
    `falseok: no prebuilt binary for ${process.platform}-${process.arch}: none of ${tried.join(", ")} is installed. ` +
      "Reinstall without --no-optional (--omit=optional), or install from source: cargo install --locked falseok\n",
  );
  process.exit(2);
}

const bin = binary();
const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (run.error) {
  process.stderr.write(`falseok: ${bin}: ${run.error.message}\n`);
  process.exit(2);
}
if (run.signal) {
  // Die of the same signal, so that a shell sees what the binary saw.
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 1 : run.status);
