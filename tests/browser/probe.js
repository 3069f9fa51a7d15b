/* tests/browser/probe.js: injected at the end of a copy of report.html by
 * tests/browser/run.sh. Measures the laid-out page and writes the result
 * as JSON into a hidden pre element, id fs-probe (display:none, after every
 * other element, so it moves nothing), which `chromium --dump-dom` prints:
 * the page's width against the viewport, every element whose right edge
 * passes the viewport, and the box of every chart's <svg> in page pixels,
 * for tests/browser/check_page.c to compare with the screenshot. */
(function () {
  var de = document.documentElement, vw = de.clientWidth;
  var over = [], charts = [];
  var all = document.body.getElementsByTagName('*');
  for (var i = 0; i < all.length; i++) {
    var r = all[i].getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 0.5)
      over.push(all[i].tagName.toLowerCase() + (all[i].id ? '#' + all[i].id : '') +
                ' right=' + r.right.toFixed(1));
    if (all[i].scrollWidth > all[i].clientWidth + 1 && all[i].clientWidth > 0 &&
        getComputedStyle(all[i]).overflowX !== 'visible')
      over.push(all[i].tagName.toLowerCase() + ' scrolls: scrollWidth=' +
                all[i].scrollWidth + ' clientWidth=' + all[i].clientWidth);
    if (over.length > 50) break;
  }
  var figs = document.querySelectorAll('figure.chart');
  for (var k = 0; k < figs.length; k++) {
    var s = figs[k].querySelector('svg'), b = s ? s.getBoundingClientRect() : null;
    charts.push({id: figs[k].id, svg: !!s,
                 x: b ? Math.round(b.left + window.scrollX) : 0,
                 y: b ? Math.round(b.top + window.scrollY) : 0,
                 w: b ? Math.round(b.width) : 0, h: b ? Math.round(b.height) : 0});
  }
  var out = {viewport_width: vw, scroll_width: de.scrollWidth,
             page_height: Math.ceil(de.scrollHeight), overflow: over, charts: charts};
  var pre = document.createElement('pre');
  pre.id = 'fs-probe';
  pre.style.display = 'none';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
