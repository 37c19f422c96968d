#!/usr/bin/env node
// Entry point of `npx mohar`: the compiled CLI (npm install / npm ci build it through `prepare`).
import '../dist/cli/main.js';
