const { DuckDBInstance } = require("@duckdb/node-api");
const fs = require("fs");
(async () => {
  const f = "/tmp/pd-n.duckdb";
  fs.rmSync(f, { force: true });
  fs.rmSync(f + ".wal", { force: true });
  const opts = JSON.parse(process.env.PD_OPTS ?? "{}");
  const i = await DuckDBInstance.create(f, opts);
  const c = await i.connect();
  await c.run("CREATE TABLE t(id BIGINT, s VARCHAR)");
  const n = Number(process.argv[2]),
    step = Number(process.argv[3]);
  for (let k = 0; k < n; k += step) {
    await c.run("BEGIN");
    await c.run(`INSERT INTO t SELECT g, repeat('x',1000)||g FROM range(${k},${k + step}) r(g)`);
    await c.run("COMMIT");
    console.log(k, (process.memoryUsage().rss / 1e6).toFixed(0));
  }
  console.log("maxRSS", (process.resourceUsage().maxRSS / 1024).toFixed(0), "size", (fs.statSync(f).size / 1e6).toFixed(0));
})();
