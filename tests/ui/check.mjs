// Drives the qpslab UI and an HTML report in Debian's headless Chromium.
// Usage: node check.mjs BASE_URL REPORT_HTML OUT_DIR
// Fails (exit 1) on any console error, a page without chart data, a run
// link that does not open its run, a campaign page without its scalability
// chart, or a report that asks the network for anything.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const [base, report, out, liveRun] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const problems = [];
function check(ok, what) { if (!ok) problems.push(what); console.log((ok ? "ok   " : "FAIL ") + what); }

async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console error on ${url}: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error on ${url}: ${e}`));
  return page;
}

async function points(page, selector) {
  return page.$$eval(selector, (ps) => ps.map((p) => p.getAttribute("points").trim().split(/\s+/).filter(Boolean).length));
}

try {
  // The start page lists runs; clicking one opens it.
  let page = await open(base + "/");
  await page.goto(base + "/");
  const runLink = page.locator("table.runs tr:has(td.status-ok) a[href^='/run/']").first();
  const href = await runLink.getAttribute("href");
  await runLink.click();
  await page.waitForURL("**" + href);
  check(page.url().endsWith(href), `clicking a run opens ${href}`);
  const runPts = await points(page, "svg.chart polyline");
  check(runPts.length >= 10 && runPts.filter((n) => n >= 2).length >= 8, `run page charts carry data (${runPts.length} series)`);
  for (const title of ["Throughput", "Latency", "Commands", "IO classes (inniostat)", "CPU split"]) {
    check(await page.locator(`svg.chart[aria-label='${title}'] polyline`).count() > 0, `run page has the ${title} chart`);
  }
  // Hover shows values; a drag zooms the time axis.
  const chart = page.locator("svg.chart[aria-label='Throughput']");
  const box = await chart.boundingBox();
  await page.mouse.move(box.x + box.width * 0.35, box.y + box.height * 0.5);
  check(await page.locator(".tip").first().isVisible(), "hovering a chart shows its values");
  const before = await chart.locator("g.plot").getAttribute("transform");
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 5 });
  await page.mouse.up();
  check((await chart.locator("g.plot").getAttribute("transform")) !== before, "dragging over a chart zooms it");
  await page.screenshot({ path: `${out}/run.png`, fullPage: true });

  // A campaign page shows its scalability chart.
  page = await open(base + "/");
  await page.goto(base + "/");
  await page.locator("a[href^='/campaign/']").first().click();
  await page.waitForURL("**/campaign/*");
  const scal = await points(page, "svg.chart[aria-label='QPS against users'] polyline");
  check(scal.length >= 1 && scal[0] >= 2, `campaign page shows its scalability chart (${scal} points)`);
  await page.screenshot({ path: `${out}/campaign.png`, fullPage: true });

  // Ticked runs overlay on relative time.
  page = await open(base + "/");
  await page.goto(base + "/");
  const boxes = page.locator("input[type=checkbox][name=run]");
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await page.locator("button", { hasText: "overlay" }).click();
  await page.waitForURL("**/overlay?**");
  const over = await points(page, "svg.chart[aria-label='QPS, runs overlaid'] polyline");
  check(over.length === 2, `overlay draws the two ticked runs (${over.length} series)`);

  // A run in progress grows on its page without a reload.
  if (liveRun) {
    page = await open(base + "/run/" + liveRun);
    await page.goto(base + "/run/" + liveRun);
    const count = async () => (await points(page, "svg.chart[aria-label='Throughput'] polyline"))[0] || 0;
    const first = await count();
    let grown = false;
    for (let i = 0; i < 40 && !grown; i++) {
      await page.waitForTimeout(500);
      grown = (await count()) > first;
    }
    check(grown, `a running run's page updates itself (from ${first} points)`);
  }

  // The report opens with the network off and shows every chart.
  page = await open(report);
  let requests = 0;
  await page.route("**/*", (route) => {
    if (route.request().url().startsWith("file:")) return route.continue();
    requests++;
    return route.abort();
  });
  await page.goto("file://" + report);
  const repPts = await points(page, "svg.chart polyline");
  check(repPts.length >= 10 && requests === 0, `report shows ${repPts.length} series offline, ${requests} network requests`);
  await page.screenshot({ path: `${out}/report.png`, fullPage: true });
} catch (e) {
  problems.push(String(e));
} finally {
  await browser.close();
}
for (const p of problems) console.log("problem: " + p);
process.exit(problems.length ? 1 : 0);
