/**
 * The 19 MAG fields of study that S2ORC labels articles with (paper Table 5 abbreviations).
 * An article's fields are stored as a bitmask: bit i = FIELDS[i]. The order is fixed forever
 * (it is baked into corpus stores on disk).
 */
export const FIELDS = [
  'Art', 'Biology', 'Business', 'Chemistry', 'Computer Science', 'Economics', 'Engineering',
  'Environmental Science', 'Geography', 'Geology', 'History', 'Materials Science', 'Mathematics',
  'Medicine', 'Philosophy', 'Physics', 'Political Science', 'Psychology', 'Sociology',
] as const;

export type Field = (typeof FIELDS)[number];

/** The paper's abbreviations, same order as FIELDS. */
export const FIELD_ABBREV: Record<Field, string> = {
  Art: 'Art', Biology: 'Bio', Business: 'Bus', Chemistry: 'Ch', 'Computer Science': 'CS', Economics: 'Eco',
  Engineering: 'Eng', 'Environmental Science': 'ES', Geography: 'Geog', Geology: 'Geol', History: 'His',
  'Materials Science': 'MS', Mathematics: 'Mat', Medicine: 'Med', Philosophy: 'Phi', Physics: 'Phy',
  'Political Science': 'PS', Psychology: 'Psy', Sociology: 'Soc',
};

/**
 * MAG's level-0 concept id of each field, as OpenAlex's root concepts keep them (docs.openalex.org, Concepts): the
 * OpenAlex reader maps concepts to fields by them, the synthetic OpenAlex works are written with them.
 */
export const MAG_ROOT_CONCEPT_IDS: Record<Field, string> = {
  Art: 'C142362112', Biology: 'C86803240', Business: 'C144133560', Chemistry: 'C185592680', 'Computer Science': 'C41008148',
  Economics: 'C162324750', Engineering: 'C127413603', 'Environmental Science': 'C39432304', Geography: 'C205649164',
  Geology: 'C127313418', History: 'C95457728', 'Materials Science': 'C192562407', Mathematics: 'C33923547',
  Medicine: 'C71924100', Philosophy: 'C138885662', Physics: 'C121332964', 'Political Science': 'C17744445',
  Psychology: 'C15744967', Sociology: 'C144024400',
};

const FIELD_INDEX = new Map<string, number>(FIELDS.map((f, i) => [f, i]));

export function fieldIndex(name: string): number {
  return FIELD_INDEX.get(name) ?? -1;
}

export function fieldBit(name: string): number {
  const i = FIELD_INDEX.get(name);
  return i === undefined ? 0 : 1 << i;
}

export function fieldsOfMask(mask: number): Field[] {
  const out: Field[] = [];
  for (let i = 0; i < FIELDS.length; i++) if (mask & (1 << i)) out.push(FIELDS[i]);
  return out;
}

/** Accepts a full MAG name or the paper's abbreviation (case-insensitive). */
export function parseField(s: string): Field | undefined {
  const lower = s.toLowerCase();
  for (const f of FIELDS) if (f.toLowerCase() === lower || FIELD_ABBREV[f].toLowerCase() === lower) return f;
  return undefined;
}

/**
 * Which classification a store's field bitmask is over: 'mag' — the 19 fields above (S2ORC's mag_field_of_study,
 * the bulk datasets' external s2fieldsofstudy, OpenAlex's level-0 concepts, which keep MAG's field ids); 'topics'
 * — the 26 fields of OpenAlex's Topics (bit i = field id 11 + i, the Scopus ASJC subject areas OpenAlex's topic
 * hierarchy is built on). The two are different classifications: names they share do not name the same sets.
 */
export type FieldScheme = 'mag' | 'topics';

export const TOPIC_FIELDS = [
  'Agricultural and Biological Sciences', 'Arts and Humanities', 'Biochemistry, Genetics and Molecular Biology',
  'Business, Management and Accounting', 'Chemical Engineering', 'Chemistry', 'Computer Science', 'Decision Sciences',
  'Earth and Planetary Sciences', 'Economics, Econometrics and Finance', 'Energy', 'Engineering', 'Environmental Science',
  'Immunology and Microbiology', 'Materials Science', 'Mathematics', 'Medicine', 'Neuroscience', 'Nursing',
  'Pharmacology, Toxicology and Pharmaceutics', 'Physics and Astronomy', 'Psychology', 'Social Sciences', 'Veterinary',
  'Dentistry', 'Health Professions',
] as const;

export type TopicField = (typeof TOPIC_FIELDS)[number];

/** The OpenAlex field id of TOPIC_FIELDS[0]; the others follow in order. */
export const TOPIC_FIELD_FIRST_ID = 11;

/** Short labels for tables; a name both schemes use keeps the MAG abbreviation. */
export const TOPIC_FIELD_ABBREV: Record<TopicField, string> = {
  'Agricultural and Biological Sciences': 'AgBio', 'Arts and Humanities': 'ArtHum',
  'Biochemistry, Genetics and Molecular Biology': 'BGMB', 'Business, Management and Accounting': 'BMA',
  'Chemical Engineering': 'ChEng', Chemistry: 'Ch', 'Computer Science': 'CS', 'Decision Sciences': 'Dec',
  'Earth and Planetary Sciences': 'EPS', 'Economics, Econometrics and Finance': 'EEF', Energy: 'Ener', Engineering: 'Eng',
  'Environmental Science': 'ES', 'Immunology and Microbiology': 'ImMi', 'Materials Science': 'MS', Mathematics: 'Mat',
  Medicine: 'Med', Neuroscience: 'Neu', Nursing: 'Nur', 'Pharmacology, Toxicology and Pharmaceutics': 'PTP',
  'Physics and Astronomy': 'PhyA', Psychology: 'Psy', 'Social Sciences': 'SocS', Veterinary: 'Vet', Dentistry: 'Den',
  'Health Professions': 'HP',
};

/** What a table says its fields are. */
export const SCHEME_LABEL: Record<FieldScheme, string> = {
  mag: "MAG's 19 fields of study",
  topics: "OpenAlex Topics' 26 fields (each work's primary topic) — not MAG's fields",
};

/** The field names of a scheme, in bit order. */
export function schemeFields(scheme: FieldScheme): readonly FieldName[] {
  return scheme === 'topics' ? TOPIC_FIELDS : FIELDS;
}

/** The bit of a field name in a scheme (0 when the scheme has no such field). */
export function fieldBitIn(scheme: FieldScheme, name: string): number {
  const i = (schemeFields(scheme) as readonly string[]).indexOf(name);
  return i < 0 ? 0 : 1 << i;
}

/** A field of a scheme by full name or abbreviation (case-insensitive). */
export function parseSchemeField(scheme: FieldScheme, s: string): FieldName | undefined {
  if (scheme === 'mag') return parseField(s);
  const lower = s.toLowerCase();
  return TOPIC_FIELDS.find((f) => f.toLowerCase() === lower || TOPIC_FIELD_ABBREV[f].toLowerCase() === lower);
}

/** A field of either scheme. */
export type FieldName = Field | TopicField;

/**
 * The abbreviation of a field of either scheme, for file names and topic-set ids (field/<abbrev>/r1): a name both
 * schemes use has one abbreviation (TOPIC_FIELD_ABBREV keeps MAG's) and no abbreviation names two fields, so an
 * abbreviation needs no scheme to say which field it is.
 */
export function fieldAbbrev(name: string): string {
  return FIELD_ABBREV[name as Field] ?? TOPIC_FIELD_ABBREV[name as TopicField] ?? name;
}

/** What a user is told a scheme's field names are (an unknown field's message). */
export function schemeFieldHint(scheme: FieldScheme): string {
  return scheme === 'mag' ? "MAG's 19: a MAG field name or the paper's abbreviation" : `OpenAlex Topics' 26: a topic field name or its abbreviation (${TOPIC_FIELDS.map((f) => TOPIC_FIELD_ABBREV[f]).join(', ')})`;
}

/**
 * The scheme a set of field names is of, where nothing else says (an MDCR file, an ad-hoc frame): OpenAlex Topics'
 * when one of them is a topic field MAG does not have, else MAG's (a name of neither scheme is then an unknown MAG
 * field). The names both schemes use stand in the same order in both, so a set of only those is ordered alike.
 */
export function schemeOfNames(names: Iterable<string>): FieldScheme {
  for (const n of names) if (!FIELD_INDEX.has(n) && (TOPIC_FIELDS as readonly string[]).includes(n)) return 'topics';
  return 'mag';
}
