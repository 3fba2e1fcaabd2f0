/** The one tie rule of every grid search: the highest score; among equal scores the first in grid order. */
export function bestOf<T extends { score: number }>(grid: readonly T[]): T {
  let best = grid[0];
  for (const p of grid) if (p.score > best.score) best = p;
  return best;
}
