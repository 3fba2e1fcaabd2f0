// Parity oracle for citebench's BM25: real Lucene 8.7 (Debian liblucene8-java) with Anserini's settings.
// Compiled and run by test/bm25/lucene-oracle.ts. Input texts are UTF-8, separated by NUL characters.
//   analyze IN OUT            one line per text: its EnglishAnalyzer tokens, space-separated
//   stem IN OUT               one word per line in, its PorterStemFilter output per line out
//   search DOCS QUERIES K K1 B OUT
//                             index DOCS (docid = position), run one SHOULD TermQuery per analysed query
//                             token; OUT lines: query rank doc scoreFloatBits
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;

public class LuceneOracle {
  static String[] readTexts(String path) throws IOException {
    String all = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
    if (all.isEmpty()) return new String[0];
    return all.split("\u0000", -1);
  }

  static List<String> analyze(Analyzer a, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = a.tokenStream("contents", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) out.add(term.toString());
      ts.end();
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Analyzer english = new EnglishAnalyzer();
    if (mode.equals("analyze")) {
      String[] texts = readTexts(args[1]);
      try (Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(args[2]), StandardCharsets.UTF_8))) {
        for (String t : texts) { w.write(String.join(" ", analyze(english, t))); w.write('\n'); }
      }
    } else if (mode.equals("stem")) {
      Analyzer stem = new Analyzer() {
        @Override protected TokenStreamComponents createComponents(String f) {
          Tokenizer src = new WhitespaceTokenizer();
          return new TokenStreamComponents(src, new PorterStemFilter(src));
        }
      };
      List<String> words = Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8);
      try (Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(args[2]), StandardCharsets.UTF_8))) {
        for (String word : words) { List<String> t = analyze(stem, word); w.write(t.isEmpty() ? "" : t.get(0)); w.write('\n'); }
      }
    } else if (mode.equals("search")) {
      String[] docs = readTexts(args[1]);
      String[] queries = readTexts(args[2]);
      int k = Integer.parseInt(args[3]);
      BM25Similarity sim = new BM25Similarity(Float.parseFloat(args[4]), Float.parseFloat(args[5]));
      BooleanQuery.setMaxClauseCount(Integer.MAX_VALUE);
      ByteBuffersDirectory dir = new ByteBuffersDirectory();
      IndexWriterConfig cfg = new IndexWriterConfig(english).setSimilarity(sim)
          .setRAMBufferSizeMB(1024).setMergePolicy(NoMergePolicy.INSTANCE);
      try (IndexWriter iw = new IndexWriter(dir, cfg)) {
        for (String d : docs) {
          Document doc = new Document();
          doc.add(new TextField("contents", d, Field.Store.NO));
          iw.addDocument(doc);
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(dir);
           Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(args[6]), StandardCharsets.UTF_8))) {
        if (reader.leaves().size() != 1) throw new IllegalStateException("expected one segment");
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(sim);
        for (int q = 0; q < queries.length; q++) {
          BooleanQuery.Builder b = new BooleanQuery.Builder();
          for (String t : analyze(english, queries[q])) b.add(new TermQuery(new Term("contents", t)), BooleanClause.Occur.SHOULD);
          TopDocs top = searcher.search(b.build(), k);
          for (int r = 0; r < top.scoreDocs.length; r++) {
            ScoreDoc sd = top.scoreDocs[r];
            w.write(q + " " + r + " " + sd.doc + " " + Float.floatToIntBits(sd.score) + "\n");
          }
        }
      }
    } else {
      throw new IllegalArgumentException("unknown mode " + mode);
    }
  }
}
