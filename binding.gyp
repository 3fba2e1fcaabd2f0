{
  "targets": [
    {
      "target_name": "citebench_bm25",
      "sources": ["native/bm25-kernel.cc"],
      "cflags_cc": ["-O3", "-ffp-contract=off", "-fno-fast-math"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-O3", "-ffp-contract=off"] },
      "msvs_settings": { "VCCLCompilerTool": { "FloatingPointModel": 0 } }
    },
    {
      "target_name": "citebench_trec_reader",
      "sources": ["native/trec-reader.cc"],
      "cflags_cc": ["-O3", "-ffp-contract=off", "-fno-fast-math"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-O3", "-ffp-contract=off"] },
      "msvs_settings": { "VCCLCompilerTool": { "FloatingPointModel": 0 } }
    },
    {
      "target_name": "citebench_mapped_file",
      "sources": ["native/mapped-file.cc"],
      "cflags_cc": ["-O2"]
    }
  ]
}
