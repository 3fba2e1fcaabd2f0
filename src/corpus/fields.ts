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
