// `require('citebench')` / `import * as cb from 'citebench'` (tslab notebooks, CommonJS programs): loads the
// TypeScript sources through tsx, so there is no build step.
module.exports = require('tsx/cjs/api').require('../src/index.ts', __filename);
