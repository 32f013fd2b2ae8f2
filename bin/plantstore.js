#!/usr/bin/env node
// Launcher. Written in syntax any Node with ES modules (12+) can parse, so an old Node gets one
// clear line instead of a SyntaxError from the bundle.
import module from 'node:module';

var MIN_MAJOR = 22;
var MIN_MINOR = 19;
var parts = process.versions.node.split('.');
var major = Number(parts[0]);
var minor = Number(parts[1]);

if (major < MIN_MAJOR || (major === MIN_MAJOR && minor < MIN_MINOR)) {
  process.stderr.write(`plantstore needs Node.js >= ${MIN_MAJOR}.${MIN_MINOR}; this is ${process.version}\n`);
  process.exit(3);
}

// Repeated runs skip recompiling the bundle (Node >= 22.1).
if (typeof module.enableCompileCache === 'function') module.enableCompileCache();

import('../dist/main.js');
