/** Durations and byte counts as the dry run and the cluster scripts print them. */
export function formatDuration(s: number): string {
  if (s < 90) return `${Math.max(1, Math.round(s))} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 2 * 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} days`;
}

export function formatBytes(b: number): string {
  if (b < 1 << 20) return `${Math.ceil(b / 1024)} KiB`;
  if (b < 1 << 30) return `${(b / (1 << 20)).toFixed(0)} MiB`;
  return `${(b / (1 << 30)).toFixed(1)} GiB`;
}
