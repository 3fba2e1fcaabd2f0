// Compiled TREC run and qrels reader (Node-API addon): the byte loops of src/eval/trec-io.ts — tokens as C's
// isspace() splits them, the score as a correctly rounded decimal, the relevance as a strict integer, docnos
// interned into string-table.ts's StringTable layout (qrels) or looked up in it (runs, with fresh docnos copied to an
// arena), query segments — doing exactly what those loops do, several times faster. It reports no errors of its
// own: at the first line it would not accept the same way (a missing or extra field, a relevance that is not an
// integer, a score that is not plain decimal, not finite, or beyond float32 where scores are float32) it returns
// that line's number, and trec-io.ts reads the whole file in TypeScript instead, which throws the error with its
// message or reads the line as it does everywhere else.
// Built with -ffp-contract=off: the score's fast path is one IEEE multiplication or division, as in JavaScript.
#include <node_api.h>

#include "napi-util.h"
#ifndef _WIN32
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr size_t CHUNK = 1 << 20;
constexpr int MAX_TOKENS = 6;
constexpr double POW10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// C isspace(): space, \t, \n, \v, \f, \r.
inline bool isSpace(uint8_t c) { return c == 32 || (c >= 9 && c <= 13); }

// A malloc'd growable array whose memory becomes a JavaScript ArrayBuffer without a copy. Large ones ask for
// transparent huge pages: first touches of fresh memory are most of the reader's system time otherwise (a 4 KiB
// page fault each; 83 MB of run: 355 → 260 ms read here).
template <typename T>
struct Grow {
  T* data = nullptr;
  size_t size = 0;
  size_t cap = 0;
  Grow() = default;
  Grow(const Grow&) = delete;  // owns data: never copied
  Grow& operator=(const Grow&) = delete;
  ~Grow() { std::free(data); }
  bool reserve(size_t n) {
    if (n <= cap) return true;
    void* p = std::realloc(data, (n ? n : 1) * sizeof(T));
    if (p == nullptr) return false;
    data = static_cast<T*>(p);
    cap = n;
#ifdef MADV_HUGEPAGE
    constexpr uintptr_t HUGE_PAGE = uintptr_t{2} << 20;
    const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + n * sizeof(T)) & ~(HUGE_PAGE - 1);
    if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#endif
    return true;
  }
  // Room for `more` items beyond size, growing by half at least.
  bool room(size_t more) { return size + more <= cap || reserve(std::max(size + more, cap + cap / 2 + 1024)); }
  bool push(T v) {
    if (!room(1)) return false;
    data[size++] = v;
    return true;
  }
};

// The qrels docno table (string-table.ts's StringTable, read as it is): lookups only.
struct Qrels {
  const uint8_t* arena;
  const uint32_t* starts;
  const int32_t* hashes;
  const int32_t* slots;
  uint32_t slotMask;
  const int32_t* filter;
  uint32_t filterMask;
};

// Short byte strings (qids, docnos, tags) compared and copied inline: the library calls cost more than the work.
inline bool sameBytes(const uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

inline void copyBytes(uint8_t* to, const uint8_t* from, size_t n) {
  for (size_t i = 0; i < n; i++) to[i] = from[i];
}

// string-table.ts's fnv1a, with its final avalanche.
inline uint32_t fnv1a(const uint8_t* p, size_t n) {
  uint32_t h = 0x811c9dc5u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x01000193u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

// StringTable.findHashed.
inline int32_t findQrels(const Qrels& q, const uint8_t* p, uint32_t len, uint32_t h) {
  const uint32_t bit = h & q.filterMask;
  if ((static_cast<uint32_t>(q.filter[bit >> 5]) & (1u << (bit & 31))) == 0) return -1;
  uint32_t slot = h & q.slotMask;
  for (;;) {
    const int32_t id = q.slots[slot];
    if (id < 0) return -1;
    if (static_cast<uint32_t>(q.hashes[id]) == h) {
      const uint32_t s = q.starts[id];
      if (q.starts[id + 1] - s == len && sameBytes(q.arena + s, p, len)) return id;
    }
    slot = (slot + 1) & q.slotMask;
  }
}

// The tokens of the line starting at u8[i] (at most `max`, into ts/te) and the index just past its newline.
inline size_t tokens(const uint8_t* u8, size_t i, int max, size_t* ts, size_t* te, int* count) {
  int k = 0;
  while (k < max) {
    uint8_t c = u8[i];
    while (c != 10 && isSpace(c)) c = u8[++i];
    if (c == 10) break;
    ts[k] = i;
    while (c > 32 || !isSpace(c)) c = u8[++i];
    te[k] = i;
    k++;
  }
  while (u8[i] != 10) i++;
  *count = k;
  return i + 1;
}

// Runs of consecutive lines with the same qid bytes: where each starts (entry index) and its qid. trec-io.ts
// interns the qids, few, in this order, as its own reader interns them line by line.
struct Segments {
  Grow<uint32_t> start;
  Grow<uint32_t> qidEnd;  // end of each segment's qid bytes in qid
  Grow<uint8_t> qid;

  // Entry `entry` has qid u8[q0, q1): false when out of memory.
  bool note(const uint8_t* u8, size_t q0, size_t q1, size_t entry) {
    const size_t len = q1 - q0;
    const size_t n = start.size;
    const size_t prev = n < 2 ? 0 : qidEnd.data[n - 2];
    if (n > 0 && qidEnd.data[n - 1] - prev == len && sameBytes(qid.data + prev, u8 + q0, len)) return true;
    if (!start.push(static_cast<uint32_t>(entry)) || !qid.room(len)) return false;
    copyBytes(qid.data + qid.size, u8 + q0, len);
    qid.size += len;
    return qidEnd.push(static_cast<uint32_t>(qid.size));
  }
};

// string-table.ts's StringTable, built as its intern() builds it — the same ids, arena, hash table and filter,
// growing at the same points — so that trec-io.ts can adopt the arrays as the qrels' docno table.
struct Table {
  Grow<uint8_t> arena;
  Grow<uint32_t> starts;
  Grow<int32_t> hashes;
  Grow<int32_t> slots;
  Grow<int32_t> filter;
  uint32_t filterMask = 2048 * 32 - 1;
  uint32_t count = 0;

  bool init() {
    if (!starts.reserve(1024) || !hashes.reserve(1024) || !slots.reserve(2048) || !filter.reserve(2048)) return false;
    starts.push(0);
    slots.size = 2048;
    std::fill(slots.data, slots.data + 2048, -1);
    filter.size = 2048;
    std::fill(filter.data, filter.data + 2048, 0);
    return true;
  }

  // Id of p[0, len), added if new; -1 when out of memory.
  int64_t intern(const uint8_t* p, uint32_t len) {
    const uint32_t h = fnv1a(p, len);
    const uint32_t mask = static_cast<uint32_t>(slots.size - 1);
    uint32_t slot = h & mask;
    for (;;) {
      const int32_t id = slots.data[slot];
      if (id < 0) break;
      if (static_cast<uint32_t>(hashes.data[id]) == h) {
        const uint32_t s = starts.data[id];
        if (starts.data[id + 1] - s == len && sameBytes(arena.data + s, p, len)) return id;
      }
      slot = (slot + 1) & mask;
    }
    const uint32_t used = starts.data[count];
    if (!arena.room(len) || !starts.push(used + len) || !hashes.push(static_cast<int32_t>(h))) return -1;
    copyBytes(arena.data + used, p, len);
    arena.size += len;
    slots.data[slot] = static_cast<int32_t>(count);
    const uint32_t bit = h & filterMask;
    filter.data[bit >> 5] |= static_cast<int32_t>(1u << (bit & 31));
    const uint32_t id = count++;
    if (count * 2 > slots.size && !rehash()) return -1;
    return id;
  }

  bool rehash() {
    const size_t n = slots.size * 2;
    Grow<int32_t> next;
    if (!next.reserve(n)) return false;
    next.size = n;
    std::fill(next.data, next.data + n, -1);
    const uint32_t mask = static_cast<uint32_t>(n - 1);
    for (uint32_t id = 0; id < count; id++) {
      uint32_t slot = static_cast<uint32_t>(hashes.data[id]) & mask;
      while (next.data[slot] >= 0) slot = (slot + 1) & mask;
      next.data[slot] = static_cast<int32_t>(id);
    }
    std::swap(slots.data, next.data);
    std::swap(slots.size, next.size);
    std::swap(slots.cap, next.cap);
    // The filter keeps ≥ 16 bits per string.
    if (static_cast<uint64_t>(count) * 16 > static_cast<uint64_t>(filterMask) + 1) {
      const size_t words = ((static_cast<size_t>(filterMask) + 1) * 4) >> 5;
      Grow<int32_t> f;
      if (!f.reserve(words)) return false;
      f.size = words;
      std::fill(f.data, f.data + words, 0);
      const uint32_t fmask = static_cast<uint32_t>(words * 32 - 1);
      for (uint32_t id = 0; id < count; id++) {
        const uint32_t bit = static_cast<uint32_t>(hashes.data[id]) & fmask;
        f.data[bit >> 5] |= static_cast<int32_t>(1u << (bit & 31));
      }
      std::swap(filter.data, f.data);
      std::swap(filter.size, f.size);
      std::swap(filter.cap, f.cap);
      filterMask = fmask;
    }
    return true;
  }
};

// trec-numbers.ts's parseInteger: an optional sign and 1–9 digits.
inline bool parseLabel(const uint8_t* s, const uint8_t* e, int32_t* out) {
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) {
    neg = *s == '-';
    s++;
  }
  if (s >= e || e - s > 9) return false;
  int32_t v = 0;
  for (; s < e; s++) {
    if (*s < '0' || *s > '9') return false;
    v = v * 10 + (*s - '0');
  }
  *out = neg ? -v : v;
  return true;
}

// trec-numbers.ts's parseDecimal: false where that function would return NaN or ±Infinity, or where the slow
// path's reading is not plainly finite (then TypeScript decides).
inline bool parseScore(const uint8_t* s, const uint8_t* e, double* out) {
  const uint8_t* i = s;
  bool neg = false;
  if (i < e && (*i == '-' || *i == '+')) {
    neg = *i == '-';
    i++;
  }
  const uint8_t* body = i;
  uint64_t mant = 0;
  int digits = 0;
  int fracDigits = 0;
  while (i < e && *i >= '0' && *i <= '9') {
    if (digits < 19) mant = mant * 10 + (*i - '0');
    digits++;
    i++;
  }
  if (i < e && *i == '.') {
    i++;
    while (i < e && *i >= '0' && *i <= '9') {
      if (digits < 19) mant = mant * 10 + (*i - '0');
      digits++;
      fracDigits++;
      i++;
    }
  }
  if (digits == 0) return false;
  const bool exact = digits <= 19 && mant < (1ull << 53);
  int exp = 0;
  if (i < e && (*i == 'e' || *i == 'E')) {
    i++;
    bool eneg = false;
    if (i < e && (*i == '-' || *i == '+')) {
      eneg = *i == '-';
      i++;
    }
    const uint8_t* start = i;
    while (i < e && *i >= '0' && *i <= '9') {
      if (exp < 100000) exp = exp * 10 + (*i - '0');
      i++;
    }
    if (i == start) return false;
    if (eneg) exp = -exp;
  }
  if (i != e) return false;
  const int p = exp - fracDigits;
  double v;
  if (exact && p >= -22 && p <= 22) {
    const double m = static_cast<double>(mant);
    v = p < 0 ? m / POW10[-p] : m * POW10[p];
  } else {
    // strtod is correctly rounded, as JavaScript's Number(), subnormal and underflow to zero included (it
    // reports those as ERANGE too). Overflow (±HUGE_VAL), long texts and a decimal point it does not take (a
    // locale other than C) are left to TypeScript.
    char text[64];
    const size_t len = static_cast<size_t>(e - body);
    if (len >= sizeof text) return false;
    std::memcpy(text, body, len);
    text[len] = 0;
    char* stop;
    errno = 0;
    v = std::strtod(text, &stop);
    if (stop != text + len || (errno != 0 && (errno != ERANGE || v == HUGE_VAL))) return false;
  }
  *out = neg ? -v : v;
  return true;
}

// A run file's lines (RunLines.parse).
struct RunScan {
  const Qrels* qrels;
  bool float64;
  uint32_t base;  // qrels docno count: fresh docnos get ids from here up
  uint32_t line = 0;
  uint32_t errorLine = 0;
  Grow<uint32_t> doc;
  Grow<float> value32;
  Grow<double> value64;
  Segments seg;
  Grow<uint8_t> freshBytes;    // RunDocnos' arena and starts
  Grow<uint32_t> freshStarts;  // count + 1 offsets, from 0
  Grow<uint8_t> tag;
  uint32_t freshCount = 0;
  bool oom = false;

  size_t count() const { return doc.size; }

  // A line read but not stored yet: lines are read BATCH at a time, prefetching the qrels table's words each
  // docno will probe, then stored: the lookups' cache misses overlap instead of following one another.
  struct Pending {
    size_t q0, q1, d0, d1, t0, t1;
    uint32_t h;
    double score;
  };
  static constexpr int BATCH = 32;
  Pending pending[BATCH];

  // The complete lines buf[0, limit), limit just after a newline; false at the first line left to TypeScript.
  bool parse(const uint8_t* u8, size_t limit) {
    size_t ts[MAX_TOKENS], te[MAX_TOKENS];
    size_t i = 0;
    while (i < limit) {
      int n = 0;
      while (n < BATCH && i < limit) {
        line++;
        int k;
        i = tokens(u8, i, MAX_TOKENS, ts, te, &k);
        if (k == 0 || u8[ts[0]] == '#') continue;
        Pending& p = pending[n++];
        if (k < MAX_TOKENS || !parseScore(u8 + ts[4], u8 + te[4], &p.score) || (!float64 && std::isinf(static_cast<float>(p.score)))) {
          errorLine = line;
          return false;
        }
        p.q0 = ts[0];
        p.q1 = te[0];
        p.d0 = ts[2];
        p.d1 = te[2];
        p.t0 = ts[5];
        p.t1 = te[5];
        p.h = fnv1a(u8 + ts[2], te[2] - ts[2]);
        __builtin_prefetch(qrels->filter + ((p.h & qrels->filterMask) >> 5));
        __builtin_prefetch(qrels->slots + (p.h & qrels->slotMask));
      }
      for (int j = 0; j < n; j++)
        if (!store(u8, pending[j])) return false;
    }
    return true;
  }

  bool store(const uint8_t* u8, const Pending& p) {
    if (!seg.note(u8, p.q0, p.q1, doc.size)) return fail();
    const uint8_t* d = u8 + p.d0;
    const uint32_t dLen = static_cast<uint32_t>(p.d1 - p.d0);
    int64_t id = findQrels(*qrels, d, dLen, p.h);
    if (id < 0) {
      if (!freshBytes.room(dLen)) return fail();
      copyBytes(freshBytes.data + freshBytes.size, d, dLen);
      freshBytes.size += dLen;
      if (!freshStarts.push(static_cast<uint32_t>(freshBytes.size))) return fail();
      id = static_cast<int64_t>(base) + freshCount++;
    }
    if (!doc.push(static_cast<uint32_t>(id))) return fail();
    if (float64 ? !value64.push(p.score) : !value32.push(static_cast<float>(p.score))) return fail();
    // trec_eval keeps the run tag of the last line.
    const size_t tl = p.t1 - p.t0;
    if (tl != tag.size || !sameBytes(tag.data, u8 + p.t0, tl)) {
      if (!tag.reserve(tl)) return fail();
      copyBytes(tag.data, u8 + p.t0, tl);
      tag.size = tl;
    }
    return true;
  }

  // After the first chunk: size the docno store from its share of fresh docnos, with 5% slack.
  void sizeFrom(size_t lines) {
    const double scale = static_cast<double>(lines) / static_cast<double>(count()) * 1.05;
    freshBytes.reserve(static_cast<size_t>(static_cast<double>(freshBytes.size) * scale));
    freshStarts.reserve(static_cast<size_t>(static_cast<double>(freshStarts.size) * scale));
  }

  bool fail() {
    oom = true;
    return false;
  }
};

// A qrels file's lines (readQrels): `qid iter docno relevance`.
struct QrelsScan {
  uint32_t line = 0;
  uint32_t errorLine = 0;
  Table docs;
  Grow<uint32_t> doc;
  Grow<int32_t> label;
  Grow<uint32_t> lines;
  Segments seg;
  bool oom = false;

  size_t count() const { return doc.size; }

  bool parse(const uint8_t* u8, size_t limit) {
    size_t ts[5], te[5];
    size_t i = 0;
    while (i < limit) {
      line++;
      int k;
      i = tokens(u8, i, 5, ts, te, &k);
      if (k == 0 || u8[ts[0]] == '#') continue;
      int32_t rel;
      if (k != 4 || !parseLabel(u8 + ts[3], u8 + te[3], &rel)) {
        errorLine = line;
        return false;
      }
      const int64_t d = docs.intern(u8 + ts[2], static_cast<uint32_t>(te[2] - ts[2]));
      if (d < 0 || !seg.note(u8, ts[0], te[0], doc.size) || !doc.push(static_cast<uint32_t>(d)) || !label.push(rel) || !lines.push(line)) {
        oom = true;
        return false;
      }
    }
    return true;
  }

  void sizeFrom(size_t) {}
};

// Read the file in chunks and parse its complete lines (a last line without newline gets one). 0: read; 1: a
// line left to TypeScript, or a file it cannot open or read (TypeScript says why); 2: out of memory.
template <typename Scan>
int readLines(const std::string& path, Scan& scan, size_t linesEstimate) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return 1;
  Grow<uint8_t> buf;
  if (!buf.reserve(CHUNK)) {
    std::fclose(f);
    return 2;
  }
  size_t have = 0;
  bool first = true;
  int status = 0;
  for (;;) {
    if (have + 1 >= buf.cap && !buf.reserve(buf.cap * 2)) {
      status = 2;
      break;
    }
    const size_t got = std::fread(buf.data + have, 1, buf.cap - have - 1, f);
    size_t end = have + got;
    if (got == 0) {
      if (std::ferror(f)) {
        status = 1;
        break;
      }
      if (end == 0) break;
      if (buf.data[end - 1] != 10) buf.data[end++] = 10;  // a last line without newline
    }
    size_t limit = end;  // complete lines only; the rest waits for the next chunk
    while (limit > 0 && buf.data[limit - 1] != 10) limit--;
    if (!scan.parse(buf.data, limit)) {
      status = scan.oom ? 2 : 1;
      break;
    }
    if (first && scan.count() > 0) {
      first = false;
      scan.sizeFrom(linesEstimate);
    }
    std::memmove(buf.data, buf.data + limit, end - limit);
    have = end - limit;
    if (got == 0) break;
  }
  std::fclose(f);
  return status;
}

#define CHECK(call) NAPI_CHECK("trec reader: ", call)


void freeData(napi_env, void* data, void*) { std::free(data); }

// The array's memory as an ArrayBuffer (ownership passes to JavaScript), or a copy where the runtime refuses
// external buffers; nullptr when out of memory.
template <typename T>
napi_value arrayBuffer(napi_env env, Grow<T>& g) {
  napi_value out;
  const size_t bytes = g.size * sizeof(T);
  if (bytes > 0 && napi_create_external_arraybuffer(env, g.data, bytes, freeData, nullptr, &out) == napi_ok) {
    g.data = nullptr;
    g.size = g.cap = 0;
    return out;
  }
  void* copy;
  if (napi_create_arraybuffer(env, bytes, &copy, &out) != napi_ok) return nullptr;
  if (bytes > 0) std::memcpy(copy, g.data, bytes);
  return out;
}

napi_value outOfMemory(napi_env env) {
  napi_throw_error(env, nullptr, "trec reader: out of memory");
  return nullptr;
}

bool stringArg(napi_env env, napi_value v, std::string* out) {
  size_t len;
  if (napi_get_value_string_utf8(env, v, nullptr, 0, &len) != napi_ok) return false;
  out->assign(len, '\0');
  return napi_get_value_string_utf8(env, v, &(*out)[0], len + 1, &len) == napi_ok;
}

// values → a JavaScript array (numbers stay numbers); nullptr (thrown) when one is missing.
napi_value result(napi_env env, napi_value* values, uint32_t n) {
  napi_value r;
  CHECK(napi_create_array_with_length(env, n, &r));
  for (uint32_t k = 0; k < n; k++) {
    if (values[k] == nullptr) return outOfMemory(env);
    CHECK(napi_set_element(env, r, k, values[k]));
  }
  return r;
}

napi_value number(napi_env env, double x) {
  napi_value v;
  return napi_create_double(env, x, &v) == napi_ok ? v : nullptr;
}

// Entries to make room for first: the caller's estimate of the file's lines.
size_t capacity(double linesEstimate) {
  return linesEstimate > 0 ? static_cast<size_t>(linesEstimate) : 1024;
}

// Reads every line of `path` into `scan`: true, or false with *answer what the scan returns instead — the line
// number left to TypeScript, or the out-of-memory error (thrown; *answer is then nullptr).
template <typename Scan>
bool readAll(napi_env env, const std::string& path, Scan& scan, size_t cap, napi_value* answer) {
  const int status = readLines(path, scan, cap);
  if (status == 0) return true;
  *answer = status == 2 ? outOfMemory(env) : number(env, scan.errorLine);
  return false;
}

// scanRun(path, float64, qrelsArena, qrelsStarts, qrelsHashes, qrelsSlots, qrelsFilter, filterMask, qrelsCount,
// linesEstimate) → the line number (a number; 0 when it could not open or read the file) of the first line left
// to TypeScript, or [count, doc, value, segStart, segQidEnd, segQid, freshBytes, freshStarts, freshCount, tag]
// (ArrayBuffers and numbers; fresh docno j is freshBytes[freshStarts[j], freshStarts[j + 1])).
napi_value ScanRun(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  std::string path;
  bool float64;
  size_t n, slots;
  uint8_t* arena;
  uint32_t* starts;
  int32_t *hashes, *slotArr, *filter;
  uint32_t filterMask, base;
  double estimate;
  if (argc < 10 || !stringArg(env, argv[0], &path) || napi_get_value_bool(env, argv[1], &float64) != napi_ok || !typedArray(env, argv[2], &arena, &n) ||
      !typedArray(env, argv[3], &starts, &n) || !typedArray(env, argv[4], &hashes, &n) || !typedArray(env, argv[5], &slotArr, &slots) ||
      !typedArray(env, argv[6], &filter, &n) || napi_get_value_uint32(env, argv[7], &filterMask) != napi_ok ||
      napi_get_value_uint32(env, argv[8], &base) != napi_ok || napi_get_value_double(env, argv[9], &estimate) != napi_ok) {
    napi_throw_type_error(env, nullptr, "trec reader: scanRun(path, float64, the qrels table's arrays, filterMask, qrelsCount, linesEstimate)");
    return nullptr;
  }
  const Qrels q{arena, starts, hashes, slotArr, static_cast<uint32_t>(slots - 1), filter, filterMask};
  RunScan scan;
  scan.qrels = &q;
  scan.float64 = float64;
  scan.base = base;
  const size_t cap = capacity(estimate);
  if (!scan.freshStarts.push(0) || !scan.doc.reserve(cap) || !(float64 ? scan.value64.reserve(cap) : scan.value32.reserve(cap))) return outOfMemory(env);
  napi_value handBack;
  if (!readAll(env, path, scan, cap, &handBack)) return handBack;
  napi_value v[] = {number(env, static_cast<double>(scan.count())),
                    arrayBuffer(env, scan.doc),
                    float64 ? arrayBuffer(env, scan.value64) : arrayBuffer(env, scan.value32),
                    arrayBuffer(env, scan.seg.start),
                    arrayBuffer(env, scan.seg.qidEnd),
                    arrayBuffer(env, scan.seg.qid),
                    arrayBuffer(env, scan.freshBytes),
                    arrayBuffer(env, scan.freshStarts),
                    number(env, scan.freshCount),
                    arrayBuffer(env, scan.tag)};
  return result(env, v, 10);
}

// scanQrels(path, linesEstimate) → the line number of the first line left to TypeScript (0 when it could not open
// or read the file), or [count, doc, label, line, segStart, segQidEnd, segQid, arena, starts, hashes, slots,
// filter, filterMask, docCount]: the entries and the docno table as StringTable holds it.
napi_value ScanQrels(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  std::string path;
  double estimate;
  if (argc < 2 || !stringArg(env, argv[0], &path) || napi_get_value_double(env, argv[1], &estimate) != napi_ok) {
    napi_throw_type_error(env, nullptr, "trec reader: scanQrels(path, linesEstimate)");
    return nullptr;
  }
  QrelsScan scan;
  const size_t cap = capacity(estimate);
  if (!scan.docs.init() || !scan.doc.reserve(cap) || !scan.label.reserve(cap) || !scan.lines.reserve(cap)) return outOfMemory(env);
  napi_value handBack;
  if (!readAll(env, path, scan, cap, &handBack)) return handBack;
  napi_value v[] = {number(env, static_cast<double>(scan.count())),
                    arrayBuffer(env, scan.doc),
                    arrayBuffer(env, scan.label),
                    arrayBuffer(env, scan.lines),
                    arrayBuffer(env, scan.seg.start),
                    arrayBuffer(env, scan.seg.qidEnd),
                    arrayBuffer(env, scan.seg.qid),
                    arrayBuffer(env, scan.docs.arena),
                    arrayBuffer(env, scan.docs.starts),
                    arrayBuffer(env, scan.docs.hashes),
                    arrayBuffer(env, scan.docs.slots),
                    arrayBuffer(env, scan.docs.filter),
                    number(env, scan.docs.filterMask),
                    number(env, scan.docs.count)};
  return result(env, v, 14);
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "scanRun", NAPI_AUTO_LENGTH, ScanRun, nullptr, &fn) != napi_ok) return nullptr;
  if (napi_set_named_property(env, exports, "scanRun", fn) != napi_ok) return nullptr;
  if (napi_create_function(env, "scanQrels", NAPI_AUTO_LENGTH, ScanQrels, nullptr, &fn) != napi_ok) return nullptr;
  if (napi_set_named_property(env, exports, "scanQrels", fn) != napi_ok) return nullptr;
  return exports;
}
