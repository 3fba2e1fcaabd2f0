"""float32 blocks appended to one little-endian binary file, indexed by element offsets (for the fixture makers
make-encoder-graph-fixtures.py and make-adapter-fixtures.py; development only)."""
import torch


class Blocks:
    def __init__(self):
        self.values, self.n = [], 0

    def add(self, t: torch.Tensor) -> int:
        """Append `t` (as float32, C order); its element offset in the file."""
        at = self.n
        flat = t.detach().to(torch.float32).reshape(-1)
        self.values.append(flat)
        self.n += flat.numel()
        return at

    def write(self, path: str) -> None:
        torch.cat(self.values).numpy().astype('<f4').tofile(path)
