/** Grid searches: the points of a grid, and the one tie rule that chooses among them. */

/** Every point of a grid, the first parameter varying slowest, each parameter's values in the order given. */
export function gridPoints(grid: Record<string, readonly number[]>): Record<string, number>[] {
  let points: Record<string, number>[] = [{}];
  for (const [name, values] of Object.entries(grid)) points = points.flatMap((p) => values.map((v) => ({ ...p, [name]: v })));
  return points;
}

/** The one tie rule of every grid search: the highest score; among equal scores the first in grid order. */
export function bestOf<T extends { score: number }>(grid: readonly T[]): T {
  let best = grid[0];
  for (const p of grid) if (p.score > best.score) best = p;
  return best;
}
