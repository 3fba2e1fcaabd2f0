/**
 * Lucene 8.7's StandardTokenizer (UAX#29 word breaks, Unicode 9 rules + UTS#51 emoji sequences), reproduced
 * from its JFlex grammar (StandardTokenizerImpl.jflex): the token rules are built as one NFA over character
 * property bits, determinised lazily, and run with longest-match scanning exactly like the JFlex scanner.
 * Text not matched by any token rule is skipped one code point at a time. Max token length 255 (UTF-16 units):
 * like Lucene's fixed 255-char scanner buffer, a longer match is cut at the last accepting point within 255.
 *
 * Character properties come from the JS engine's Unicode tables (newer than Lucene's Unicode 9); the two agree
 * on everything English scientific text contains, which the parity test checks against real Lucene.
 */

// Property bits of a code point (a code point may have several).
const AHL = 0, HEB = 1, NUM = 2, KAT = 3, MIDLET = 4, MIDNUM = 5, ENL = 6, SQ = 7, DQ = 8, EFZ = 9, EFZS = 10,
  HAN = 11, HIRA = 12, HANGUL = 13, RI = 14, SA = 15, EMOJI_CHAR = 16, EMB = 17, EMOD = 18, ZWJ = 19, FE0F = 20,
  KEYCAP_BASE = 21, KEYCAP = 22, TAGSPEC = 23, TAGTERM = 24;

const re = {
  alpha: /\p{Alphabetic}/u,
  ideo: /\p{Ideographic}/u,
  kataScript: /\p{Script=Katakana}/u,
  hiraScript: /\p{Script=Hiragana}/u,
  hanScript: /\p{Script=Han}/u,
  hangulScript: /\p{Script=Hangul}/u,
  hebrewLo: /(?=\p{Script=Hebrew})\p{Lo}/u,
  graphemeExtend: /\p{Grapheme_Extend}/u,
  mc: /\p{Mc}/u,
  cf: /\p{Cf}/u,
  nd: /\p{Nd}/u,
  pc: /\p{Pc}/u,
  // Line_Break=Complex_Context is not exposed by JS; approximated by the letters and marks of its scripts.
  sa: /(?=[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tai_Le}\p{Script=New_Tai_Lue}\p{Script=Tai_Tham}\p{Script=Tai_Viet}\p{Script=Ahom}])[\p{L}\p{Mn}\p{Mc}]/u,
  emoji: /\p{Emoji}/u,
  extPict: /\p{Extended_Pictographic}/u,
  emod: /\p{Emoji_Modifier}/u,
  emb: /\p{Emoji_Modifier_Base}/u,
};

const ALETTER_EXTRA = new Set([0x02c2, 0x02c3, 0x02c4, 0x02c5, 0x02d2, 0x02d3, 0x02d4, 0x02d5, 0x02d6, 0x02d7, 0x02de,
  0x02df, 0x02e5, 0x02e6, 0x02e7, 0x02e8, 0x02e9, 0x02ea, 0x02eb, 0x02ed, 0x02ef, 0x02f0, 0x02f1, 0x02f2, 0x02f3,
  0x02f4, 0x02f5, 0x02f6, 0x02f7, 0x02f8, 0x02f9, 0x02fa, 0x02fb, 0x02fc, 0x02fd, 0x02fe, 0x02ff, 0x05f3, 0xa720,
  0xa721, 0xa789, 0xa78a, 0xab5b]);
const KATAKANA_EXTRA = new Set([0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x309b, 0x309c, 0x30a0, 0x30fc, 0xff70]);
const MID_LETTER = new Set([0x003a, 0x00b7, 0x0387, 0x05f4, 0x2027, 0xfe13, 0xfe55, 0xff1a]);
const MID_NUM_LET = new Set([0x002e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e]);
const MID_NUM = new Set([0x002c, 0x003b, 0x037e, 0x0589, 0x060c, 0x060d, 0x066c, 0x07f8, 0x2044, 0xfe10, 0xfe14,
  0xfe50, 0xfe54, 0xff0c, 0xff1b]);
const ACCIDENTAL_EMOJI = new Set([0x00a9, 0x00ae, 0x2122, 0x3030, 0x303d]);

/** Bitmask of the properties the grammar uses, for one code point. */
function propertyBits(cp: number): number {
  const ch = String.fromCodePoint(cp);
  let bits = 0;
  const set = (bit: number) => (bits |= 1 << bit);
  const isExtend = (re.graphemeExtend.test(ch) || re.mc.test(ch)) && cp !== 0x200d;
  const isFormat = re.cf.test(ch) && cp !== 0x200b && cp !== 0x200c && cp !== 0x200d;
  const isKatakana = re.kataScript.test(ch) || KATAKANA_EXTRA.has(cp);
  const isHebrewLetter = re.hebrewLo.test(ch);
  const isSA = re.sa.test(ch);
  const isHira = re.hiraScript.test(ch);
  const isALetter = (re.alpha.test(ch) || ALETTER_EXTRA.has(cp)) && !re.ideo.test(ch) && !isKatakana && !isSA &&
    !isHira && !isExtend && !isHebrewLetter;
  if (isALetter || isHebrewLetter) set(AHL);
  if (isHebrewLetter) set(HEB);
  if (re.nd.test(ch)) set(NUM);
  if (isKatakana) set(KAT);
  if (MID_LETTER.has(cp) || MID_NUM_LET.has(cp) || cp === 0x27) set(MIDLET);
  if (MID_NUM.has(cp) || MID_NUM_LET.has(cp) || cp === 0x27) set(MIDNUM);
  if (re.pc.test(ch)) set(ENL);
  if (cp === 0x27) set(SQ);
  if (cp === 0x22) set(DQ);
  if (isExtend || isFormat || cp === 0x200d) {
    set(EFZ);
    if (cp !== 0xfe0e && cp !== 0xfe0f) set(EFZS);
  }
  if (re.hanScript.test(ch)) set(HAN);
  if (isHira) set(HIRA);
  if (re.hangulScript.test(ch) && (isALetter || isHebrewLetter)) set(HANGUL);
  const isRI = cp >= 0x1f1e6 && cp <= 0x1f1ff;
  if (isRI) set(RI);
  if (isSA) set(SA);
  const isKeycapBase = (cp >= 0x30 && cp <= 0x39) || cp === 0x23 || cp === 0x2a;
  const isEmod = re.emod.test(ch);
  if (re.extPict.test(ch) || (re.emoji.test(ch) && !(isRI || isKeycapBase || ACCIDENTAL_EMOJI.has(cp) || isEmod))) {
    set(EMOJI_CHAR);
  }
  if (re.emb.test(ch)) set(EMB);
  if (isEmod) set(EMOD);
  if (cp === 0x200d) set(ZWJ);
  if (cp === 0xfe0f) set(FE0F);
  if (isKeycapBase) set(KEYCAP_BASE);
  if (cp === 0x20e3) set(KEYCAP);
  if (cp >= 0xe0020 && cp <= 0xe007e) set(TAGSPEC);
  if (cp === 0xe007f) set(TAGTERM);
  return bits;
}

// ---- A tiny regular-expression → NFA compiler over property bits (Thompson construction). ----
type Node =
  | { t: 'p'; bit: number }
  | { t: 'seq'; xs: Node[] }
  | { t: 'alt'; xs: Node[] }
  | { t: 'star'; x: Node };
const p = (bit: number): Node => ({ t: 'p', bit });
const seq = (...xs: Node[]): Node => ({ t: 'seq', xs });
const alt = (...xs: Node[]): Node => ({ t: 'alt', xs });
const star = (x: Node): Node => ({ t: 'star', x });
const plus = (x: Node): Node => seq(x, star(x));
const eps: Node = { t: 'seq', xs: [] };
const opt = (x: Node): Node => alt(x, eps);

/** The token rules of StandardTokenizerImpl.jflex (everything except the ignored `[^]`). */
function grammar(): Node {
  const ex = (bit: number) => seq(p(bit), star(p(EFZ))); // UAX#29 WB4: X (Extend | Format | ZWJ)*
  const sansPres = star(p(EFZS));
  const emojiCharEx = seq(p(EMOJI_CHAR), sansPres);
  const ecpm = alt(
    seq(star(p(ZWJ)), emojiCharEx, opt(p(FE0F))),
    seq(opt(seq(star(p(ZWJ)), p(EMB), sansPres)), p(EMOD), sansPres),
  );
  const emoji = alt(
    seq(ecpm, alt(star(seq(p(ZWJ), ecpm)), seq(plus(p(TAGSPEC)), p(TAGTERM)))),
    seq(p(KEYCAP_BASE), sansPres, opt(p(FE0F)), p(KEYCAP), sansPres),
    seq(ex(RI), ex(RI)),
  );
  const numRun = seq(ex(NUM), star(seq(alt(star(ex(ENL)), ex(MIDNUM)), ex(NUM))));
  const numeric = seq(star(ex(ENL)), numRun, star(ex(ENL)));
  const inner = alt(
    seq(ex(KAT), star(seq(star(ex(ENL)), ex(KAT)))),
    plus(alt(
      seq(ex(HEB), alt(ex(SQ), seq(ex(DQ), ex(HEB)))),
      numRun,
      seq(ex(AHL), star(seq(alt(star(ex(ENL)), ex(MIDLET)), ex(AHL)))),
    )),
  );
  const word = seq(star(ex(ENL)), inner, star(seq(plus(ex(ENL)), inner)), star(ex(ENL)));
  return alt(emoji, numeric, plus(ex(HANGUL)), plus(ex(KAT)), word, plus(ex(SA)), ex(HAN), ex(HIRA));
}

class Nfa {
  eps: number[][] = [];
  edge: { bit: number; to: number }[][] = [];
  newState(): number {
    this.eps.push([]);
    this.edge.push([]);
    return this.eps.length - 1;
  }
  /** Compile `n` between fresh states; returns [start, end]. */
  build(n: Node): [number, number] {
    const s = this.newState();
    const e = this.newState();
    switch (n.t) {
      case 'p':
        this.edge[s].push({ bit: n.bit, to: e });
        break;
      case 'seq': {
        let cur = s;
        for (const x of n.xs) {
          const [a, b] = this.build(x);
          this.eps[cur].push(a);
          cur = b;
        }
        this.eps[cur].push(e);
        break;
      }
      case 'alt':
        for (const x of n.xs) {
          const [a, b] = this.build(x);
          this.eps[s].push(a);
          this.eps[b].push(e);
        }
        break;
      case 'star': {
        const [a, b] = this.build(n.x);
        this.eps[s].push(a, e);
        this.eps[b].push(a, e);
        break;
      }
    }
    return [s, e];
  }
  closure(states: Iterable<number>): number[] {
    const seen = new Set<number>();
    const stack = [...states];
    while (stack.length) {
      const x = stack.pop()!;
      if (seen.has(x)) continue;
      seen.add(x);
      for (const y of this.eps[x]) stack.push(y);
    }
    return [...seen].sort((a, b) => a - b);
  }
}

/** Lazily determinised scanner: DFA states are NFA state sets, columns are distinct property signatures. */
class Scanner {
  private readonly nfa = new Nfa();
  private readonly accept: number;
  private readonly stateSets: number[][] = [];
  private readonly stateIndex = new Map<string, number>();
  private readonly accepting: boolean[] = [];
  private sigOfBits = new Map<number, number>();
  private sigBits: number[] = [];
  private readonly maxSigs = 512;
  /** trans[state * maxSigs + sig]: -2 unknown, -1 dead. */
  private trans = new Int32Array(0);
  readonly asciiSig = new Int32Array(128);
  private readonly cpSig = new Map<number, number>();

  constructor() {
    const [s, e] = this.nfa.build(grammar());
    this.accept = e;
    this.stateFor(this.nfa.closure([s]));
    for (let c = 0; c < 128; c++) this.asciiSig[c] = this.sigOf(c);
  }

  private stateFor(set: number[]): number {
    const key = set.join(',');
    let id = this.stateIndex.get(key);
    if (id !== undefined) return id;
    id = this.stateSets.length;
    this.stateSets.push(set);
    this.stateIndex.set(key, id);
    this.accepting.push(set.includes(this.accept));
    if (this.trans.length < (id + 1) * this.maxSigs) {
      const grown = new Int32Array(Math.max(this.trans.length * 2, (id + 1) * this.maxSigs)).fill(-2);
      grown.set(this.trans);
      this.trans = grown;
    }
    return id;
  }

  sigOf(cp: number): number {
    let sig = this.cpSig.get(cp);
    if (sig !== undefined) return sig;
    const bits = propertyBits(cp);
    sig = this.sigOfBits.get(bits);
    if (sig === undefined) {
      sig = this.sigBits.length;
      if (sig >= this.maxSigs) throw new Error('tokenizer: too many distinct character classes');
      this.sigBits.push(bits);
      this.sigOfBits.set(bits, sig);
    }
    this.cpSig.set(cp, sig);
    return sig;
  }

  step(state: number, sig: number): number {
    const slot = state * this.maxSigs + sig;
    const t = this.trans[slot];
    if (t !== -2) return t;
    const bits = this.sigBits[sig];
    const next: number[] = [];
    for (const s of this.stateSets[state]) {
      for (const e of this.nfa.edge[s]) if (bits & (1 << e.bit)) next.push(e.to);
    }
    const to = next.length ? this.stateFor(this.nfa.closure(next)) : -1;
    this.trans[state * this.maxSigs + sig] = to; // trans may have grown inside stateFor
    return to;
  }

  isAccepting(state: number): boolean {
    return this.accepting[state];
  }
}

const MAX_TOKEN_LENGTH = 255;
let shared: Scanner | undefined;

/**
 * Calls `emit(start, end)` for every token of `text` (UTF-16 offsets), in order.
 */
export function tokenize(text: string, emit: (start: number, end: number) => void): void {
  const sc = (shared ??= new Scanner());
  const ascii = sc.asciiSig;
  const n = text.length;
  let pos = 0;
  while (pos < n) {
    let state = 0;
    let i = pos;
    let lastAccept = -1;
    const limit = Math.min(n, pos + MAX_TOKEN_LENGTH);
    while (i < limit) {
      const c = text.charCodeAt(i);
      let sig: number;
      let width = 1;
      if (c < 128) sig = ascii[c];
      else {
        let cp = c;
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
          const lo = text.charCodeAt(i + 1);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = ((c - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
            width = 2;
          }
        }
        if (i + width > limit) break; // a surrogate pair does not fit in the 255-char buffer
        sig = sc.sigOf(cp);
      }
      state = sc.step(state, sig);
      if (state < 0) break;
      i += width;
      if (sc.isAccepting(state)) lastAccept = i;
    }
    if (lastAccept > pos) {
      emit(pos, lastAccept);
      pos = lastAccept;
    } else {
      // No token starts here: skip one code point (JFlex's `[^]` rule).
      const c = text.charCodeAt(pos);
      pos += c >= 0xd800 && c <= 0xdbff && pos + 1 < n && (text.charCodeAt(pos + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    }
  }
}

/** The raw tokens of `text` (before possessive stripping, lower-casing, stop words and stemming). */
export function tokens(text: string): string[] {
  const out: string[] = [];
  tokenize(text, (s, e) => out.push(text.slice(s, e)));
  return out;
}
