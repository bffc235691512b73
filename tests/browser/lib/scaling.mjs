// Waits until the scaling view's table holds `count` rows, each with its answer in the third
// column (not empty, not the "…" of a size still being searched).
export function waitForScalingRows(page, count, timeout) {
  return page.waitForFunction(
    (expected) => {
      const cells = document.querySelectorAll(
        '[data-testid="scaling-row"] td:nth-child(3)',
      );
      return (
        cells.length === expected &&
        [...cells].every(
          (cell) => cell.textContent.trim() !== "" && cell.textContent !== "…",
        )
      );
    },
    count,
    { timeout },
  );
}
