// Load time and memory of a corpus store, and the sequential text scan rate.
// usage: node --import tsx bench/corpus/load.ts STORE
import { CorpusStore } from '../../src/corpus/store.ts';

const dir = process.argv[2];
const rss0 = process.memoryUsage().rss;
let t = performance.now();
const store = CorpusStore.open(dir);
const openMs = performance.now() - t;
const rss1 = process.memoryUsage().rss;
t = performance.now();
let chars = 0;
for (const a of store.texts()) chars += a.title.length + a.abstract.length;
const scanS = (performance.now() - t) / 1000;
t = performance.now();
store.indexOf(store.id(0)); // builds the id hash
const hashMs = performance.now() - t;
t = performance.now();
let found = 0;
for (let i = 0; i < store.size; i += 97) if (store.indexOf(store.id(i)) === i) found++;
const lookups = Math.ceil(store.size / 97);
const lookupUs = ((performance.now() - t) * 1000) / lookups;
console.log(`${dir}: ${store.size} articles, ${store.outTargets.length} citations`);
console.log(`open: ${openMs.toFixed(0)} ms, +${((rss1 - rss0) / 2 ** 20).toFixed(0)} MiB RSS`);
console.log(`text scan: ${(store.size / scanS).toFixed(0)} articles/s (${(chars / 2 ** 20 / scanS).toFixed(0)} M chars/s)`);
console.log(`id hash build: ${hashMs.toFixed(0)} ms; id lookups: ${found}/${lookups} ok, ${lookupUs.toFixed(2)} µs each`);
