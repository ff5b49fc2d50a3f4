#!/usr/bin/env node
// A cardtable bot as a program (docs/bot-protocol.md) in JavaScript, Node.js only.
//
//     cardtable match scout --bots 'cmd:node examples/json_bot.js,heuristic,heuristic'
//
// One JSON object a line on stdin, one answer a line on stdout. It shows the longest span it
// can, scouts otherwise, calls SOLO when it may and catches only a missed call it saw; ties
// are broken by its own stream seeded from the match's "seed".
"use strict";
const readline = require("readline");

let state = 0x9e3779b9;
function seed(hex) {
  state = 0;
  for (let i = 0; i < hex.length; i += 8) state = (Math.imul(state, 31) + parseInt(hex.slice(i, i + 8), 16)) >>> 0;
}
function random() { // mulberry32
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function value(game, action) {
  if (game === "scout") {
    const show = /^show:(\d+)(?:-(\d+))?$/.exec(action);
    if (show) return 10 * ((show[2] === undefined ? +show[1] : +show[2]) - +show[1] + 1);
    return action.includes("+show:") ? 1 : 0.5;
  }
  if (action === "draw" || action === "keep" || action === "decline") return 0;
  return 10 * action.split("+").length + (action.endsWith("!") ? 1 : 0);
}

function decide(kind, obs, legal) {
  if (legal.includes("solo")) return "solo";
  const solo = obs.solo;
  if (solo && !solo.called && legal.includes(`catch:${solo.seat}`)) return `catch:${solo.seat}`;
  if (kind === "react") return obs.game === "scout" && legal.includes("keep") ? "keep" : null;
  const moves = legal.filter((a) => !a.startsWith("catch:") && a !== "solo");
  let best = null, bestValue = -Infinity;
  for (const a of moves.length ? moves : legal) {
    const v = value(obs.game, a) + random() / 2;
    if (v > bestValue) { best = a; bestValue = v; }
  }
  return best;
}

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") send({ type: "hello", name: "json-bot-js", games: ["solo", "scout"], protocol: 1 });
  else if (msg.type === "match") seed(msg.seed);
  else if (msg.type === "choose" || msg.type === "react") send({ id: msg.id, action: decide(msg.type, msg.obs, msg.legal) });
  else if (msg.type === "quit") process.exit(0);
});
