// The JavaScript baseline of BENCHMARKS.md ("The cold CLI against a
// JavaScript scan"): one whole-process pass of a SillyTavern-style world-info
// scan, written for this project (not SillyTavern's code), doing per request
// what such a scan does in a browser tab: read the book, join the last
// `scan_depth` messages into one buffer, and for every enabled entry build a
// RegExp for each key (or a substring test) and test it on the buffer;
// secondary keys with AND ANY; recursion over the activated bodies while new
// entries activate; then the budget in order, with the usual character-based
// token estimate (one token per 3.35 characters) instead of a tokenizer, which
// only makes the baseline faster.
//
// Usage: node benches/baseline/scan.mjs BOOK.json CHAT.json [--log]
//   BOOK: a native (lorebook_v3) book; CHAT: a JSON array of {role, content}.
//   --log: every request of the chat in turn (the last one alone otherwise).
// Prints the activated entries of each request as JSON lines.
import { readFileSync } from 'node:fs';

const [bookPath, chatPath] = process.argv.slice(2);
const log = process.argv.includes('--log');
const book = JSON.parse(readFileSync(bookPath, 'utf8')).data;
const chat = JSON.parse(readFileSync(chatPath, 'utf8'));

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function keyMatches(key, entry, buffer, lowered) {
  const caseSensitive = entry.case_sensitive === true;
  const slash = /^\/(.+)\/([a-z]*)$/s.exec(key);
  if (slash) {
    try {
      return new RegExp(slash[1], slash[2]).test(buffer);
    } catch {
      return false;
    }
  }
  const text = caseSensitive ? buffer : lowered;
  const needle = caseSensitive ? key.trim() : key.trim().toLowerCase();
  if (needle === '') return false;
  if (entry.extensions?.match_whole_words === false) return text.includes(needle);
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRe(needle)}($|[^\\p{L}\\p{N}_])`, 'u').test(text);
}

function activates(entry, buffer, lowered) {
  if (!entry.keys.some((k) => keyMatches(k, entry, buffer, lowered))) return false;
  const secondary = entry.secondary_keys ?? [];
  if (!entry.selective || secondary.length === 0) return true;
  return secondary.some((k) => keyMatches(k, entry, buffer, lowered));
}

function request(messages) {
  const depth = book.scan_depth ?? 8;
  let buffer = messages.slice(-depth).map((m) => m.content).join('\n');
  const active = new Set();
  for (let pass = 0; pass < 10; pass++) {
    const lowered = buffer.toLowerCase();
    const fresh = [];
    for (const entry of book.entries) {
      if (entry.enabled === false || active.has(entry)) continue;
      if (entry.constant || activates(entry, buffer, lowered)) fresh.push(entry);
    }
    fresh.forEach((e) => active.add(e));
    if (fresh.length === 0 || !book.recursive_scanning) break;
    buffer += '\n' + fresh.map((e) => e.content).join('\n');
  }
  const ordered = [...active].sort((a, b) => (b.insertion_order ?? 0) - (a.insertion_order ?? 0));
  const budget = book.token_budget ?? 4000;
  let used = 0;
  const injected = [];
  for (const entry of ordered) {
    const tokens = Math.ceil(entry.content.length / 3.35);
    if (used + tokens > budget) continue;
    used += tokens;
    injected.push({ id: entry.id, name: entry.comment, tokens });
  }
  return { used, injected };
}

const ends = log ? chat.map((_, i) => i + 1) : [chat.length];
for (const end of ends) {
  process.stdout.write(JSON.stringify({ request: end, ...request(chat.slice(0, end)) }) + '\n');
}
