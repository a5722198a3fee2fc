/**
 * The formula path's cost: parseCsvWithFormula (papaparse into text
 * columns, categorical coding, an interaction) against the numeric loader's
 * parseCsvText on the same rows with the dummies written by hand (baseline).
 *
 *   deno bench --allow-read --allow-env bench/design_bench.ts
 *     TALLMC_DESIGN_BENCH_ROWS rows (default 20 000): y, x1, x2, region (3 levels).
 */
import { parseCsvText } from "../data/csv.ts";
import { parseCsvWithFormula } from "../data/formula_csv.ts";

function _rows(): number {
  try {
    return Number(Deno.env.get("TALLMC_DESIGN_BENCH_ROWS") ?? 20_000);
  } catch {
    return 20_000;
  }
}

const n = _rows();
const text: string[] = ["y,x1,x2,region"], hand: string[] = ["y,x1,x2,south,west,x1x2"];
for (let i = 0; i < n; i++) {
  const x1 = Math.sin(i).toFixed(6), x2 = Math.cos(3 * i).toFixed(6);
  const r = ["north", "south", "west"][i % 3], y = (i * 7) % 3 === 0 ? 1 : 0;
  text.push(`${y},${x1},${x2},${r}`);
  hand.push(
    `${y},${x1},${x2},${r === "south" ? 1 : 0},${r === "west" ? 1 : 0},${Number(x1) * Number(x2)}`,
  );
}
const formulaCsv = text.join("\n") + "\n", handCsv = hand.join("\n") + "\n";

Deno.bench(`parseCsvText, ${n} rows, dummies by hand`, { group: "design", baseline: true }, () => {
  parseCsvText(handCsv, { response: "y", family: "logistic" });
});

Deno.bench(`parseCsvWithFormula, ${n} rows, y ~ x1*x2 + region`, { group: "design" }, () => {
  parseCsvWithFormula(formulaCsv, { formula: "y ~ x1*x2 + region", family: "logistic" });
});
