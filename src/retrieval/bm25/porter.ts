/**
 * The Porter (1980) stemmer exactly as Lucene 8.7's PorterStemmer / PorterStemFilter apply it (Martin Porter's
 * reference-C variant: `bli→ble`, `logi→log`; words of ≤ 2 chars untouched; every char other than a,e,i,o,u
 * — and y after a vowel — is a consonant, digits and non-ASCII letters included). A line-by-line port so the
 * parity test against real Lucene can hold on every word; the npm `stemmer` package differs (see test/bm25).
 */
export class PorterStemmer {
  private b = new Uint16Array(64);
  private j = 0;
  private k = 0;
  private readonly k0 = 0;

  /** Stem one (already lower-cased) word. */
  stem(word: string): string {
    const len = word.length;
    if (len <= 2) return word;
    if (this.b.length < len + 8) this.b = new Uint16Array(len + 64);
    const b = this.b;
    for (let i = 0; i < len; i++) b[i] = word.charCodeAt(i);
    this.k = len - 1;
    this.step1();
    this.step2();
    this.step3();
    this.step4();
    this.step5();
    this.step6();
    const out = this.k + 1;
    // Unchanged words are returned as is (no allocation): compare the buffer with the input.
    if (out === len) {
      let same = true;
      for (let i = 0; i < len; i++) if (b[i] !== word.charCodeAt(i)) { same = false; break; }
      if (same) return word;
    }
    return String.fromCharCode.apply(null, Array.from(b.subarray(0, out)));
  }

  private cons(i: number): boolean {
    switch (this.b[i]) {
      case 97: case 101: case 105: case 111: case 117: // a e i o u
        return false;
      case 121: // y
        return i === this.k0 ? true : !this.cons(i - 1);
      default:
        return true;
    }
  }

  /** Number of consonant sequences between k0 and j. */
  private m(): number {
    let n = 0;
    let i = this.k0;
    const j = this.j;
    for (;;) {
      if (i > j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }

  private vowelinstem(): boolean {
    for (let i = this.k0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }

  private doublec(j: number): boolean {
    if (j < this.k0 + 1) return false;
    if (this.b[j] !== this.b[j - 1]) return false;
    return this.cons(j);
  }

  private cvc(i: number): boolean {
    if (i < this.k0 + 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const ch = this.b[i];
    return !(ch === 119 || ch === 120 || ch === 121); // w x y
  }

  private ends(s: string): boolean {
    const l = s.length;
    const o = this.k - l + 1;
    if (o < this.k0) return false;
    for (let i = 0; i < l; i++) if (this.b[o + i] !== s.charCodeAt(i)) return false;
    this.j = this.k - l;
    return true;
  }

  private setto(s: string): void {
    const l = s.length;
    const o = this.j + 1;
    for (let i = 0; i < l; i++) this.b[o + i] = s.charCodeAt(i);
    this.k = this.j + l;
  }

  private r(s: string): void {
    if (this.m() > 0) this.setto(s);
  }

  private step1(): void {
    const b = this.b;
    if (b[this.k] === 115) { // s
      if (this.ends('sses')) this.k -= 2;
      else if (this.ends('ies')) this.setto('i');
      else if (b[this.k - 1] !== 115) this.k--;
    }
    if (this.ends('eed')) {
      if (this.m() > 0) this.k--;
    } else if ((this.ends('ed') || this.ends('ing')) && this.vowelinstem()) {
      this.k = this.j;
      if (this.ends('at')) this.setto('ate');
      else if (this.ends('bl')) this.setto('ble');
      else if (this.ends('iz')) this.setto('ize');
      else if (this.doublec(this.k)) {
        const ch = b[this.k--];
        if (ch === 108 || ch === 115 || ch === 122) this.k++; // l s z
      } else if (this.m() === 1 && this.cvc(this.k)) this.setto('e');
    }
  }

  private step2(): void {
    if (this.ends('y') && this.vowelinstem()) this.b[this.k] = 105; // i
  }

  private step3(): void {
    if (this.k === this.k0) return;
    switch (String.fromCharCode(this.b[this.k - 1])) {
      case 'a':
        if (this.ends('ational')) { this.r('ate'); break; }
        if (this.ends('tional')) { this.r('tion'); break; }
        break;
      case 'c':
        if (this.ends('enci')) { this.r('ence'); break; }
        if (this.ends('anci')) { this.r('ance'); break; }
        break;
      case 'e':
        if (this.ends('izer')) { this.r('ize'); break; }
        break;
      case 'l':
        if (this.ends('bli')) { this.r('ble'); break; }
        if (this.ends('alli')) { this.r('al'); break; }
        if (this.ends('entli')) { this.r('ent'); break; }
        if (this.ends('eli')) { this.r('e'); break; }
        if (this.ends('ousli')) { this.r('ous'); break; }
        break;
      case 'o':
        if (this.ends('ization')) { this.r('ize'); break; }
        if (this.ends('ation')) { this.r('ate'); break; }
        if (this.ends('ator')) { this.r('ate'); break; }
        break;
      case 's':
        if (this.ends('alism')) { this.r('al'); break; }
        if (this.ends('iveness')) { this.r('ive'); break; }
        if (this.ends('fulness')) { this.r('ful'); break; }
        if (this.ends('ousness')) { this.r('ous'); break; }
        break;
      case 't':
        if (this.ends('aliti')) { this.r('al'); break; }
        if (this.ends('iviti')) { this.r('ive'); break; }
        if (this.ends('biliti')) { this.r('ble'); break; }
        break;
      case 'g':
        if (this.ends('logi')) { this.r('log'); break; }
    }
  }

  private step4(): void {
    switch (String.fromCharCode(this.b[this.k])) {
      case 'e':
        if (this.ends('icate')) { this.r('ic'); break; }
        if (this.ends('ative')) { this.r(''); break; }
        if (this.ends('alize')) { this.r('al'); break; }
        break;
      case 'i':
        if (this.ends('iciti')) { this.r('ic'); break; }
        break;
      case 'l':
        if (this.ends('ical')) { this.r('ic'); break; }
        if (this.ends('ful')) { this.r(''); break; }
        break;
      case 's':
        if (this.ends('ness')) { this.r(''); break; }
        break;
    }
  }

  private step5(): void {
    if (this.k === this.k0) return;
    switch (String.fromCharCode(this.b[this.k - 1])) {
      case 'a':
        if (this.ends('al')) break;
        return;
      case 'c':
        if (this.ends('ance')) break;
        if (this.ends('ence')) break;
        return;
      case 'e':
        if (this.ends('er')) break;
        return;
      case 'i':
        if (this.ends('ic')) break;
        return;
      case 'l':
        if (this.ends('able')) break;
        if (this.ends('ible')) break;
        return;
      case 'n':
        if (this.ends('ant')) break;
        if (this.ends('ement')) break;
        if (this.ends('ment')) break;
        if (this.ends('ent')) break;
        return;
      case 'o':
        if (this.ends('ion') && this.j >= 0 && (this.b[this.j] === 115 || this.b[this.j] === 116)) break;
        if (this.ends('ou')) break;
        return;
      case 's':
        if (this.ends('ism')) break;
        return;
      case 't':
        if (this.ends('ate')) break;
        if (this.ends('iti')) break;
        return;
      case 'u':
        if (this.ends('ous')) break;
        return;
      case 'v':
        if (this.ends('ive')) break;
        return;
      case 'z':
        if (this.ends('ize')) break;
        return;
      default:
        return;
    }
    if (this.m() > 1) this.k = this.j;
  }

  private step6(): void {
    this.j = this.k;
    if (this.b[this.k] === 101) { // e
      const a = this.m();
      if (a > 1 || (a === 1 && !this.cvc(this.k - 1))) this.k--;
    }
    if (this.b[this.k] === 108 && this.doublec(this.k) && this.m() > 1) this.k--; // l
  }
}
