// Drives the qpslab UI and the HTML reports in Debian's headless Chromium.
// Usage: node check.mjs BASE_URL RUN_REPORT OUT_DIR LIVE_RUN CAMPAIGN CAMPAIGN_REPORT
// Fails (exit 1) on any console error, a page without chart data, a run
// link that does not open its run, a legend cut short or spilling out of
// the page (at 1,400 and 800 px), a campaign page without one chart per
// workload, a live run whose summary does not move, a report without its
// environment section, a report that asks the network for anything, or a
// page of the UI without its Content-Security-Policy or breaking it.
// Every page is kept as a screenshot at both widths in OUT_DIR.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const [base, report, out, liveRun, campaign, campaignReport] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const problems = [];
function check(ok, what) { if (!ok) problems.push(what); console.log((ok ? "ok   " : "FAIL ") + what); }
const WIDTHS = [1400, 800];

async function open(url, width = 1400) {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console error on ${url}: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error on ${url}: ${e}`));
  // Any Content-Security-Policy violation is a problem (the UI's pages
  // carry a strict policy: their own served script and style only).
  await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e) =>
    console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`)));
  const resp = await page.goto(url);
  if (url.startsWith("http") && !(resp && (resp.headers()["content-security-policy"] || "").includes("script-src 'self'")))
    problems.push(`no Content-Security-Policy on ${url}`);
  return page;
}

async function points(page, selector) {
  return page.$$eval(selector, (ps) => ps.map((p) => p.getAttribute("points").trim().split(/\s+/).filter(Boolean).length));
}

// Every legend entry shows its whole series name inside the page's width,
// and every chart fits the page.
async function legendsReadable(page, what) {
  const r = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth, bad = [];
    let entries = 0;
    document.querySelectorAll("svg.chart").forEach((svg) => {
      const names = Array.from(svg.querySelectorAll("polyline")).map((p) => p.dataset.name);
      const items = Array.from(svg.parentNode.querySelectorAll("ul.legend li"));
      const box = svg.getBoundingClientRect();
      if (box.right > vw + 1 || box.width < vw * 0.6) bad.push(`${svg.getAttribute("aria-label")}: ${Math.round(box.width)} px of ${vw}`);
      if (items.length !== names.length) bad.push(`${svg.getAttribute("aria-label")}: ${items.length} legend entries for ${names.length} series`);
      items.forEach((li, i) => {
        entries++;
        const b = li.getBoundingClientRect();
        if (li.textContent !== names[i]) bad.push(`legend '${li.textContent}' is not '${names[i]}'`);
        if (li.scrollWidth > li.clientWidth + 1 || b.right > vw + 1) bad.push(`legend '${li.textContent}' cut (${Math.round(b.right)} > ${vw})`);
      });
    });
    return { bad, entries };
  });
  check(r.bad.length === 0 && r.entries > 0, `${what}: ${r.entries} legend entries readable${r.bad.length ? ": " + r.bad.slice(0, 3).join("; ") : ""}`);
}

async function shots(url, name, extra) {
  for (const w of WIDTHS) {
    const page = await open(url, w);
    if (extra) await extra(page, w);
    await page.screenshot({ path: `${out}/${name}-${w}.png`, fullPage: true });
    await page.close();
  }
}

try {
  // The start page lists runs; clicking one opens it.
  let page = await open(base + "/");
  // A 2-second run of the sweep (the campaign's are 1-second runs).
  const runLink = page.locator("table.runs tr:has(td.status-ok):has(td:text-is('oltp_read_write')) a[href^='/run/']").first();
  const href = await runLink.getAttribute("href");
  await runLink.click();
  await page.waitForURL("**" + href);
  check(page.url().endsWith(href), `clicking a run opens ${href}`);
  const runPts = await points(page, "svg.chart polyline");
  check(runPts.length >= 10 && runPts.filter((n) => n >= 2).length >= 8, `run page charts carry data (${runPts.length} series, points: ${runPts.join(",")})`);
  for (const title of ["Throughput", "Transactions", "Latency", "Commands", "IO classes (inniostat)", "CPU split"]) {
    const drawn = await page.locator(`svg.chart[aria-label='${title}'] polyline`).count();
    const noted = await page.locator(`p.chart-note:text-matches('^${title.replace(/[()]/g, ".")}: ')`).count();
    check(drawn > 0 || noted > 0, `run page has the ${title} chart, or its one-line note`);
  }
  // The panels share one time axis.
  const ranges = await page.$$eval("svg.chart[data-group='time']", (s) => s.map((e) => e.dataset.x0 + ":" + e.dataset.x1));
  check(ranges.length >= 5 && new Set(ranges).size === 1, `run page panels share one time axis (${new Set(ranges).size} ranges over ${ranges.length})`);
  // Hover shows values and the crosshair in every panel; a drag zooms them all.
  const chart = page.locator("svg.chart[aria-label='Throughput']");
  const box = await chart.boundingBox();
  await page.mouse.move(box.x + box.width * 0.35, box.y + box.height * 0.5);
  check(await page.locator(".tip").first().isVisible(), "hovering a chart shows its values");
  const rules = await page.$$eval("svg.chart[data-group='time'] > line[stroke-dasharray='3 3']", (ls) => ls.filter((l) => l.getAttribute("visibility") === "visible").length);
  check(rules === ranges.length, `the crosshair shows on every panel (${rules} of ${ranges.length})`);
  const other = page.locator("svg.chart[aria-label='Latency'] g.plot");
  const before = await other.getAttribute("transform");
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 5 });
  await page.mouse.up();
  check((await other.getAttribute("transform")) !== before, "dragging over one chart zooms the others with it");
  // The legend: hover highlights, click hides a series.
  const li = page.locator("svg.chart[aria-label='Throughput'] + ul.legend li").first();
  await li.click();
  check(await page.locator("svg.chart[aria-label='Throughput'] polyline[data-i='0']").evaluate((p) => getComputedStyle(p).display === "none"), "clicking a legend entry hides its series");
  await legendsReadable(page, "run page");
  await page.close();
  await shots(base + href, "run");
  // The start page: at both widths the runs table's key columns fit
  // without horizontal scrolling; at 800 px the others hide until "all
  // columns" is ticked.
  await shots(base + "/", "index", async (page, w) => {
    const fit = await page.$eval("table.runs", (t) => ({ sw: t.scrollWidth, cw: t.clientWidth, page: document.documentElement.scrollWidth <= window.innerWidth + 1 }));
    check(fit.sw <= fit.cw + 1 && fit.page, `start page at ${w} px: the runs table fits (${fit.sw} of ${fit.cw} px)`);
    const heads = await page.$$eval("table.runs th", (ths) => ths.filter((h) => getComputedStyle(h).display !== "none").map((h) => h.textContent));
    check(["workload", "users", "status", "qps", "p95 ms", "bottleneck"].every((k) => heads.includes(k)), `start page at ${w} px shows workload, users, status, qps, p95, bottleneck (${heads.join(", ")})`);
    if (w === 800) {
      await page.locator("label.allcols input").check();
      const all = await page.$$eval("table.runs th", (ths) => ths.filter((h) => getComputedStyle(h).display !== "none").length);
      check(all > heads.length, `"all columns" brings back the others at 800 px (${heads.length} -> ${all})`);
    }
  });

  // The 5-variant x 2-workload campaign: one chart pair per workload,
  // every legend readable at both widths.
  for (const w of WIDTHS) {
    page = await open(`${base}/campaign/${campaign}`, w);
    const qps = await page.$$eval("svg.chart[aria-label^='QPS against users: ']", (s) => s.map((e) => e.querySelectorAll("polyline").length));
    check(qps.length === 2 && qps.every((n) => n >= 5), `campaign page at ${w} px: a QPS chart per workload (${qps})`);
    const names = await page.$$eval("ul.legend li", (ls) => ls.map((l) => l.textContent));
    check(names.some((n) => n.includes("spin-delay-48 and a long variant name")), `campaign legends name the variants whole (${names[0]})`);
    await legendsReadable(page, `campaign page at ${w} px`);
    await page.screenshot({ path: `${out}/campaign-${w}.png`, fullPage: true });
    await page.close();
  }

  // Ticked runs overlay on relative time.
  page = await open(base + "/");
  const boxes = page.locator("input[type=checkbox][name=run]");
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await page.locator("button", { hasText: "overlay" }).click();
  await page.waitForURL("**/overlay?**");
  const over = await points(page, "svg.chart[aria-label='QPS, runs overlaid'] polyline");
  check(over.length === 2, `overlay draws the two ticked runs (${over.length} series)`);
  await shots(page.url(), "overlay");
  await page.close();

  // A run in progress: its summary (elapsed, qps) moves without a reload.
  if (liveRun) {
    page = await open(base + "/run/" + liveRun);
    const now = async () => page.locator("#live").count().then((n) => n ? page.locator("#live").innerText() : "");
    const first = await now();
    let moved = false;
    for (let i = 0; i < 40 && !moved; i++) {
      await page.waitForTimeout(500);
      const t = await now();
      moved = t !== "" && t !== first && /running: \d+ s of \d+/.test(t) && /now [\d.]+ qps/.test(t);
    }
    check(first.startsWith("running:") && moved, `a running run's live summary moves ('${first}' -> '${await now()}')`);
    const count = async () => (await points(page, "svg.chart[aria-label='Throughput'] polyline"))[0] || 0;
    const n0 = await count();
    await page.waitForTimeout(2500);
    check((await count()) > n0, `a running run's charts grow (from ${n0} points)`);
    await page.screenshot({ path: `${out}/live-1400.png`, fullPage: true });
    await page.close();
    page = await open(base + "/");
    check((await page.locator("td.status-running").count()) > 0, "the start page marks the running run");
    await page.close();
  }

  // The reports open with the network off, show every chart and carry
  // their environment.
  for (const [file, name] of [[report, "report"], [campaignReport, "campaign-report"]]) {
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console error on ${file}: ${m.text()}`); });
    let requests = 0;
    await page.route("**/*", (route) => {
      if (route.request().url().startsWith("file:")) return route.continue();
      requests++;
      return route.abort();
    });
    await page.goto("file://" + file);
    const repPts = await points(page, "svg.chart polyline");
    check(repPts.length >= 5 && requests === 0, `${name} shows ${repPts.length} series offline, ${requests} network requests`);
    const env = page.locator("details.env").first();
    check((await page.locator("details.env").count()) >= 1, `${name} has an environment section`);
    await env.locator(":scope > summary").click();
    const text = await env.innerText();
    check(/MariaDB/.test(text) && /qpslab \d/.test(text) && text.includes("Variables not at their default (") && text.includes("set by") && text.includes("Command line") && text.includes("kernel"),
      `${name}'s environment names the server, host, qpslab and the non-default variables`);
    if (name === "campaign-report") {
      // A table of contents whose every link lands on a section.
      const hrefs = await page.$$eval("nav.toc a", (as) => as.map((a) => a.getAttribute("href")));
      const missing = await page.evaluate((hs) => hs.filter((h) => !document.getElementById(h.slice(1))), hrefs);
      check(hrefs.length >= 5 && missing.length === 0, `${name} has a table of contents whose ${hrefs.length} links resolve (missing: ${missing.join(" ")})`);
    }
    await page.screenshot({ path: `${out}/${name}-1400.png`, fullPage: true });
    await page.setViewportSize({ width: 800, height: 1000 });
    await legendsReadable(page, `${name} at 800 px`);
    await page.screenshot({ path: `${out}/${name}-800.png`, fullPage: true });
    await page.close();
  }
} catch (e) {
  problems.push(String(e));
} finally {
  await browser.close();
}
for (const p of problems) console.log("problem: " + p);
process.exit(problems.length ? 1 : 0);
