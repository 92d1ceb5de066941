/* graphmem interactive memory-graph viewer.
 * Reads the graph JSON embedded in #graphmem-data and renders it with Cytoscape.js.
 * No network access: everything this page needs is inlined by graphmem.viz.render_html. */
(function () {
  'use strict';

  // ------------------------------------------------------------------ constants
  var KIND_COLORS = {
    fact: '#2f6fd0',
    preference: '#8e44ad',
    procedure: '#0f9d86',
    correction: '#e8710a',
    negative: '#d93025',
    episode: '#b7950b'
  };
  var KIND_ORDER = ['fact', 'preference', 'procedure', 'correction', 'negative', 'episode'];
  var EXTRA_KIND_COLORS = ['#5f6b7a', '#6d4c41', '#00838f', '#ad1457', '#558b2f'];
  var TAG_COLOR = '#d6336c';
  var CLUSTER_COLOR = '#3b4a5e';
  var EDGE_TYPES = ['HasTag', 'InCluster', 'RelatesTo', 'Supersedes', 'Contradicts', 'DerivedFrom'];
  var EDGE_STYLE = {
    HasTag: { color: '#c5ccd6', text: '#8a6a7a', line: 'solid', arrow: 'none', fast: true },
    InCluster: { color: '#a7b6c8', text: '#5b6b80', line: 'dotted', arrow: 'none', fast: true },
    RelatesTo: { color: '#4f7fd6', line: 'solid', arrow: 'none', fast: false, opacity: 0.5 },
    Supersedes: { color: '#e8710a', line: 'dashed', arrow: 'triangle', fast: false },
    Contradicts: { color: '#e03131', line: 'solid', arrow: 'tee', fast: false },
    DerivedFrom: { color: '#7b4ab8', line: 'dashed', arrow: 'vee', fast: false }
  };
  var OTHER_EDGE_STYLE = { color: '#9aa5b1', line: 'solid', arrow: 'none', fast: false };
  var AGG_COLOR = '#9fb0c4';
  var MATCH_COLOR = '#facc15';
  var RECALL_COLOR = '#f59e0b';
  var NO_CLUSTER = '__graphmem_unclustered__';
  var OVERVIEW_TAGS = 30;

  // ------------------------------------------------------------------ helpers
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === undefined || v === null) return;
        if (k === 'text') e.textContent = String(v);
        else if (k === 'className') e.className = v;
        else if (k === 'style') e.setAttribute('style', v);
        else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v);
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function num(v, dflt) { return (typeof v === 'number' && isFinite(v)) ? v : dflt; }
  function str(v) { return v === null || v === undefined ? '' : String(v); }
  function clamp(v, lo, hi) { return v < lo ? lo : (v > hi ? hi : v); }
  function truncate(s, n) { s = str(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
  function fmtWeight(w) { return typeof w === 'number' && isFinite(w) ? w.toFixed(2) : ''; }
  function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : (word.slice(-1) === 'h' ? 'es' : 's')); }
  function fmtValue(v) {
    if (v === null || v === undefined) return '\u2014';
    if (typeof v === 'object') { try { return JSON.stringify(v); } catch (e) { return String(v); } }
    return String(v);
  }

  // ------------------------------------------------------------------ data
  var raw;
  try {
    raw = JSON.parse($('graphmem-data').textContent || '{}') || {};
  } catch (err) {
    raw = { nodes: [], edges: [] };
    console.error('graphmem: cannot parse embedded graph data', err);
  }
  var options = (raw && typeof raw.options === 'object' && raw.options) || {};
  // Above this many nodes the page opens as an overview: past a few hundred nodes the labels
  // overlap at the zoom that fits the graph (an 800-node graph drawn whole is a hairball).
  var THRESHOLD = num(options.overview_threshold, 300);
  // LAZY: the page holds an overview of a big store (graphmem.vizdata): groups carry their
  // member counts, and only some members are loaded; FETCH: the server sends the rest.
  var LAZY = !!(raw.groups && typeof raw.groups === 'object');
  var FETCH = LAZY && options.fetch === true;
  var TOTALS = (raw.totals && typeof raw.totals === 'object') ? raw.totals : null;
  // Member slots a lazy group's disk keeps room for (it may hold far more memories).
  var LAZY_SLOTS = 1500;

  var nodes = [];                    // normalised node records
  var byId = new Map();
  var edges = [];                    // normalised edge records
  var edgeById = new Map();
  var memories = [], tags = [], clusters = [];
  var tagByName = new Map();
  var kindCounts = new Map();
  var groupEdges = [];               // lazy overview: cluster-tag / cluster-cluster links, counted
  var loadOrder = 0;

  function ingestNode(n) {
    if (!n || typeof n !== 'object' || n.id === null || n.id === undefined) return null;
    var id = String(n.id);
    if (byId.has(id)) return null;
    var type = n.type === 'tag' || n.type === 'cluster' ? n.type : 'memory';
    var rec = {
      id: id, type: type, raw: n,
      label: str(n.label) || (type === 'memory' ? truncate(n.content, 60) : id),
      kind: str(n.kind), edges: [], x: null, y: null, order: loadOrder++
    };
    if (typeof n.x === 'number' && isFinite(n.x) && typeof n.y === 'number' && isFinite(n.y)) {
      rec.givenX = n.x; rec.givenY = n.y;
    }
    if (type === 'memory') {
      rec.active = n.active !== false;
      rec.content = str(n.content);
      rec.tagNames = Array.isArray(n.tags) ? n.tags.map(str) : [];
      rec.clusterRef = n.cluster === null || n.cluster === undefined ? null : String(n.cluster);
      rec.meta = n.meta && typeof n.meta === 'object' ? n.meta : {};
      rec.kind = rec.kind || 'fact';
      kindCounts.set(rec.kind, (kindCounts.get(rec.kind) || 0) + 1);
      memories.push(rec);
    } else if (type === 'tag') {
      tags.push(rec);
      if (!tagByName.has(rec.label)) tagByName.set(rec.label, rec);
    } else {
      clusters.push(rec);
    }
    nodes.push(rec);
    byId.set(id, rec);
    return rec;
  }

  var skippedEdges = 0;
  function ingestEdge(e, i) {
    if (!e || typeof e !== 'object') return;
    if (e.group === true) {
      groupEdges.push({ source: str(e.source), target: str(e.target), type: str(e.type), count: num(e.count, 1) });
      return;
    }
    var s = byId.get(str(e.source)), t = byId.get(str(e.target));
    if (!s || !t) { skippedEdges++; return; }
    var id = e.id === null || e.id === undefined ? 'e#' + i : String(e.id);
    if (LAZY && edgeById.has(id)) return;   // sent again with a later page of members
    while (edgeById.has(id) || byId.has(id)) id = id + '#' + i;
    var rec = {
      id: id, source: s.id, target: t.id, type: str(e.type) || 'RelatesTo',
      weight: typeof e.weight === 'number' && isFinite(e.weight) ? e.weight : null, raw: e
    };
    edges.push(rec);
    edgeById.set(id, rec);
    s.edges.push(rec);
    if (t !== s) t.edges.push(rec);
  }

  function otherEnd(edge, id) { return edge.source === id ? edge.target : edge.source; }

  var unclustered = [];
  var noCluster = null;
  var groupsRaw = LAZY ? raw.groups : {};
  // Synthetic aggregate for unclustered memories (only used in overview mode).
  function makeNoCluster() {
    var info = groupsRaw[NO_CLUSTER] || null;
    if (!unclustered.length && !(info && (num(info.count, 0) + num(info.inactive, 0)) > 0)) return;
    noCluster = {
      id: NO_CLUSTER, type: 'cluster', synthetic: true, raw: info || {}, label: 'unclustered',
      kind: '', edges: [], members: unclustered, size: unclustered.length, search: 'unclustered'
    };
  }

  // Everything derived from the loaded nodes and edges; run again when members are loaded.
  function derive() {
    memories.forEach(function (m) {
      var c = m.clusterRef && byId.get(m.clusterRef);
      m.cluster = c && c.type === 'cluster' ? c.id : null;
      var tagIds = new Set();
      m.tagNames.forEach(function (name) { var t = tagByName.get(name); if (t) tagIds.add(t.id); });
      m.edges.forEach(function (e) {
        var o = byId.get(otherEnd(e, m.id));
        if (e.type === 'HasTag' && o.type === 'tag') tagIds.add(o.id);
        if (e.type === 'InCluster' && o.type === 'cluster' && !m.cluster) m.cluster = o.id;
      });
      m.tagIds = Array.from(tagIds);
      var names = new Set(m.tagNames);
      m.tagIds.forEach(function (tid) { names.add(byId.get(tid).label); });
      m.allTagNames = Array.from(names);
      m.search = (m.label + '\n' + m.content + '\n' + m.allTagNames.join('\n')).toLowerCase();
    });
    var clusterMembers = new Map();
    clusters.forEach(function (c) { clusterMembers.set(c.id, []); });
    unclustered.length = 0;
    memories.forEach(function (m) {
      if (m.cluster) clusterMembers.get(m.cluster).push(m); else unclustered.push(m);
    });
    tags.forEach(function (t) {
      var mems = new Set();
      t.edges.forEach(function (e) {
        var o = byId.get(otherEnd(e, t.id));
        if (o.type === 'memory') mems.add(o.id);
      });
      t.memberIds = mems;
      t.search = t.label.toLowerCase();
    });
    memories.forEach(function (m) {
      m.tagIds.forEach(function (tid) { byId.get(tid).memberIds.add(m.id); });
    });
    // Counts are of ACTIVE members: a tag or cluster is as big as what it holds now. A lazy
    // page has the store's counts; a page holding every member counts them.
    tags.forEach(function (t) {
      var active = 0, inactive = 0;
      t.memberIds.forEach(function (mid) { if (byId.get(mid).active) active++; else inactive++; });
      t.activeCount = LAZY ? num(t.raw.count, active) : active;
      t.inactiveCount = LAZY ? num(t.raw.inactive, inactive) : inactive;
      t.degree = t.activeCount;
      t.loaded = t.memberIds.size;
    });
    clusters.forEach(function (c) {
      c.members = clusterMembers.get(c.id);
      countGroup(c);
      c.search = c.label.toLowerCase();
    });
    if (!noCluster) makeNoCluster();
    if (noCluster) {
      noCluster.members = unclustered;
      countGroup(noCluster);
      unclustered.forEach(function (m) { m.group = NO_CLUSTER; });
    }
    memories.forEach(function (m) { if (m.cluster) m.group = m.cluster; });
  }
  function countGroup(g) {
    var active = 0;
    g.members.forEach(function (m) { if (m.active) active++; });
    g.activeCount = LAZY ? num(g.raw.count, active) : active;
    g.inactiveCount = LAZY ? num(g.raw.inactive, g.members.length - active) : g.members.length - active;
    g.total = g.activeCount + g.inactiveCount;
    g.size = g.total;
    g.loaded = g.members.length;
  }

  (Array.isArray(raw.nodes) ? raw.nodes : []).forEach(ingestNode);
  (Array.isArray(raw.edges) ? raw.edges : []).forEach(ingestEdge);
  if (skippedEdges && !LAZY) console.warn('graphmem: skipped ' + skippedEdges + ' edges with unknown endpoints');
  derive();

  // Recall
  var recall = raw.recall && typeof raw.recall === 'object' ? raw.recall : null;
  var recallHits = [];
  var recallHitIds = new Set(), recallPathNodes = new Set(), recallPathEdges = new Set();
  if (recall) {
    (Array.isArray(recall.hits) ? recall.hits : []).forEach(function (h) {
      if (!h || h.id === null || h.id === undefined) return;
      var id = String(h.id);
      var path = Array.isArray(h.path) ? h.path.map(str) : [];
      recallHits.push({ id: id, score: num(h.score, null), path: path, node: byId.get(id) || null });
      if (byId.has(id)) recallHitIds.add(id);
      path.forEach(function (p, i) {
        if (byId.has(p)) recallPathNodes.add(p);
        if (i === 0) return;
        var a = byId.get(path[i - 1]);
        if (!a) return;
        a.edges.forEach(function (e) {
          if (otherEnd(e, a.id) === p && e.source !== e.target) recallPathEdges.add(e.id);
        });
      });
    });
    recallHits.sort(function (a, b) { return num(b.score, -Infinity) - num(a.score, -Infinity); });
  }
  // A hit's rank (1 = best), written before its label so the graph and the recall panel agree.
  var recallRank = new Map();
  recallHits.forEach(function (h, i) { if (!recallRank.has(h.id)) recallRank.set(h.id, i + 1); });

  // ------------------------------------------------------------------ colours
  var kindColor = {};
  var extraIdx = 0;
  KIND_ORDER.forEach(function (k) { kindColor[k] = KIND_COLORS[k]; });
  // A lazy page learns of memories as it loads them: every kind has a filter from the start.
  var allKinds = KIND_ORDER.filter(function (k) { return LAZY || kindCounts.has(k); });
  Array.from(kindCounts.keys()).sort().forEach(function (k) {
    if (kindColor[k]) return;
    kindColor[k] = EXTRA_KIND_COLORS[extraIdx++ % EXTRA_KIND_COLORS.length];
    allKinds.push(k);
  });

  // ------------------------------------------------------------------ layout
  // Deterministic O(n) layout. Each group (a cluster, or the unclustered memories) lays its
  // members out as a grid of rows with the label to the right of each node, so labels never
  // overlap at the zoom that fits a group; groups are shelf-packed; a cluster's node sits above
  // its grid (as a tile over it while collapsed); tags sit at the centroid of their memories
  // (lazy page: of the clusters their memories are in), snapped to a free cell. An open tag in
  // the overview draws its members beside the layout. Nodes with numeric x/y keep them.
  var CW = 180;         // grid cell width: node plus a label of about 30 characters
  var RH = 30;          // grid row height
  var HEAD = 44;        // room above a group's grid for its cluster node
  var GAP = 90;
  var layoutGroups = [];
  var allGiven = false;
  var layoutRight = 0, layoutTop = 0, layoutBottom = 0;
  function gridBox(n) {
    n = Math.max(n, 1);
    var cols = Math.max(1, Math.round(Math.sqrt(n * RH / CW)));
    var rows = Math.ceil(n / cols);
    return { cols: cols, rows: rows, w: cols * CW, h: rows * RH };
  }
  // Position of member i in a grid whose top-left corner is (x0, y0).
  function cellAt(x0, y0, cols, i) {
    return { x: x0 + (i % cols) * CW + 10, y: y0 + Math.floor(i / cols) * RH + RH / 2 };
  }
  // A collapsed group's tile: its area grows with its active members, and fits its grid.
  function tileSize(n) { return Math.round(clamp(0.85 * Math.sqrt(Math.max(n, 1) * CW * RH), 60, 6000)); }
  // Room a group keeps: all its members, or (lazy) as many as a page is likely to load.
  function groupSlots(g) { return LAZY ? Math.min(g.total, LAZY_SLOTS) : g.members.length; }
  // Members of a group on its grid. A lazy page keeps the order members arrived in, so those
  // already drawn stay where they are when more are loaded.
  function layoutMembers(g) {
    if (!g.box) return;
    var members = g.members.slice().sort(LAZY ? function (a, b) { return a.order - b.order; } : function (a, b) {
      var ka = allKinds.indexOf(a.kind), kb = allKinds.indexOf(b.kind);
      if (ka !== kb) return ka - kb;
      return (b.active ? 1 : 0) - (a.active ? 1 : 0);
    });
    members.forEach(function (m, i) {
      var p = cellAt(g.gridX, g.gridY, g.box.cols, i);
      m.x = p.x; m.y = p.y;
      if ('givenX' in m) { m.x = m.givenX; m.y = m.givenY; }
    });
  }
  function computeLayout() {
    var groups = clusters.map(function (c) { return { node: c, members: c.members }; });
    if (noCluster) groups.push({ node: noCluster, members: unclustered });
    groups.forEach(function (g) {
      g.box = gridBox(groupSlots(g.node));
      g.w = Math.max(g.box.w, tileSize(g.node.activeCount)) + GAP;
      g.h = g.box.h + HEAD + GAP;
    });
    var order = groups.slice().sort(function (a, b) { return b.w * b.h - a.w * a.h; });
    var area = 0;
    order.forEach(function (g) { area += g.w * g.h; });
    var rowWidth = Math.max(Math.sqrt(area) * 1.3, order.length ? order[0].w : 0);
    var x = 0, y = 0, rowH = 0;
    order.forEach(function (g) {
      if (x > 0 && x + g.w > rowWidth) { x = 0; y += rowH; rowH = 0; }
      g.left = x; g.top = y;
      x += g.w; rowH = Math.max(rowH, g.h);
      layoutRight = Math.max(layoutRight, x);
      layoutBottom = Math.max(layoutBottom, y + g.h);
    });
    groups.forEach(function (g) {
      var n = g.node;
      n.box = g.box;
      n.gridX = g.left + (g.w - GAP - g.box.w) / 2;
      n.gridY = g.top + HEAD;
      // The cluster node heads its grid; its collapsed tile covers the grid.
      n.x = g.left + (g.w - GAP) / 2; n.y = g.top + HEAD / 2;
      n.tileX = n.x; n.tileY = n.gridY + g.box.h / 2;
      layoutMembers(n);
    });
    layoutGroups = groups;
    // Given coordinates win.
    allGiven = memories.length > 0 && memories.every(function (m) { return 'givenX' in m; });
    nodes.forEach(function (n) { if ('givenX' in n) { n.x = n.tileX = n.givenX; n.y = n.tileY = n.givenY; } });
    if (allGiven) {
      groups.forEach(function (g) {
        if ('givenX' in g.node || !g.members.length) return;
        var sx = 0, sy = 0;
        g.members.forEach(function (m) { sx += m.x; sy += m.y; });
        g.node.x = g.node.tileX = sx / g.members.length; g.node.y = g.node.tileY = sy / g.members.length;
      });
    }
    // Tags: centroid of their memories (lazy: of the clusters their members are in), snapped
    // to the nearest free grid cell.
    var CELL = 26;
    var occupied = new Set();
    function key(i, j) { return i + ',' + j; }
    memories.forEach(function (m) { occupied.add(key(Math.round(m.x / CELL), Math.round(m.y / CELL))); });
    // Keep tags off the groups' grids and tiles.
    if (!allGiven) {
      groups.forEach(function (g) {
        var i0 = Math.floor(g.left / CELL), i1 = Math.ceil((g.left + g.w - GAP) / CELL);
        var j0 = Math.floor(g.top / CELL), j1 = Math.ceil((g.top + g.h - GAP) / CELL);
        for (var i = i0; i <= i1; i++) for (var j = j0; j <= j1; j++) occupied.add(key(i, j));
      });
    }
    var linkedGroups = new Map();
    groupEdges.forEach(function (e) {
      if (e.type !== 'HasTag') return;
      if (!linkedGroups.has(e.target)) linkedGroups.set(e.target, []);
      linkedGroups.get(e.target).push(e);
    });
    var maxX = 0;
    nodes.forEach(function (n) { if (n.type !== 'tag' && n.x > maxX) maxX = n.x; });
    var orphanI = 0;
    var tagOrder = tags.slice().sort(function (a, b) { return b.degree - a.degree; });
    tagOrder.forEach(function (t) {
      if ('givenX' in t) return;
      var sx = 0, sy = 0, c = 0;
      t.memberIds.forEach(function (mid) { var m = byId.get(mid); sx += m.x; sy += m.y; c++; });
      if (!c) {
        (linkedGroups.get(t.id) || []).forEach(function (e) {
          var g = groupNode(e.source);
          if (g) { sx += e.count * g.tileX; sy += e.count * g.tileY; c += e.count; }
        });
      }
      var tx, ty;
      if (c) { tx = sx / c; ty = sy / c; } else { tx = maxX + GAP + (orphanI % 10) * CELL * 2; ty = Math.floor(orphanI / 10) * CELL * 2; orphanI++; }
      var i0 = Math.round(tx / CELL), j0 = Math.round(ty / CELL);
      var found = null;
      for (var r = 0; r < 400 && !found; r++) {
        var best = null, bestD = Infinity;
        for (var di = -r; di <= r; di++) {
          for (var dj = -r; dj <= r; dj++) {
            if (Math.max(Math.abs(di), Math.abs(dj)) !== r) continue;
            if (occupied.has(key(i0 + di, j0 + dj))) continue;
            var d = di * di + dj * dj;
            if (d < bestD) { bestD = d; best = [i0 + di, j0 + dj]; }
          }
        }
        found = best;
      }
      if (!found) found = [i0, j0];
      occupied.add(key(found[0], found[1]));
      t.x = found[0] * CELL; t.y = found[1] * CELL;
      layoutRight = Math.max(layoutRight, t.x + CELL);
    });
    nodes.forEach(function (n) { if (n.x === null || !isFinite(n.x)) { n.x = 0; n.y = 0; } });
    nodes.forEach(function (n) { if (n.type === 'cluster' && !isFinite(n.tileX)) { n.tileX = n.x; n.tileY = n.y; } });
    // The overview's tags: a band right of the clusters, busiest first, each sized like the
    // tiles (a tag on the centroid of thousands of memories would be a dot among big tiles).
    overviewTags = tags.slice().sort(function (a, b) { return b.degree - a.degree || (a.label < b.label ? -1 : 1); })
      .filter(function (t) { return LAZY || t.degree >= 2; }).slice(0, LAZY ? tags.length : OVERVIEW_TAGS);
    // A list in columns as tall as the clusters: each tag a diamond with its whole name and
    // count written to its right, in a font that stays readable (see updateTileFonts).
    // The list grows with the layout (a big store's clusters span thousands of units), so its
    // names are as readable as the tiles at the zoom that fits both.
    tagScale = Math.max(1, layoutBottom / Math.max(8, overviewTags.length) / TAG_ROW);
    var row = TAG_ROW * tagScale, col = TAG_COL * tagScale;
    var rows = Math.max(8, Math.floor(layoutBottom / row));
    var cols = Math.max(1, Math.ceil(overviewTags.length / rows));
    rows = Math.ceil(overviewTags.length / cols);
    var bandX = layoutRight + GAP;
    overviewTags.forEach(function (t, i) {
      t.ovX = bandX + Math.floor(i / rows) * col + row / 2;
      t.ovY = (i % rows) * row + row / 2;
    });
    if (overviewTags.length) layoutRight = bandX + cols * col;
  }
  var TAG_ROW = 120;        // the overview's tag list: row height (graph units, times tagScale)
  var TAG_COL = 1300;       // and column width: room for a whole tag name and its count
  var TAG_FONT = 44;        // its labels' font at the zoom that fits the page, at most
  var tagScale = 1;
  var overviewTags = [];
  function overviewTagSize(t) {
    return Math.round(clamp(12 * Math.sqrt(Math.max(t.activeCount, 1)), 24 * tagScale, TAG_ROW * 0.75 * tagScale));
  }
  function tagLabel(n) {
    return '#' + truncate(n.label, 48) + (state.overview ? ' \u00b7 ' + n.activeCount.toLocaleString() : '');
  }
  function groupNode(groupId) { return groupId === NO_CLUSTER ? noCluster : byId.get(groupId); }
  computeLayout();

  // ------------------------------------------------------------------ state
  var state = {
    overview: LAZY || nodes.length > THRESHOLD,
    expanded: new Set(),        // open clusters (and the unclustered group)
    expandedTags: new Set(),    // open tags: their members are drawn around them
    kinds: new Set(allKinds),
    showActive: true,
    showInactive: true,
    showTags: true,
    showClusters: true,
    edgeTypes: new Set(EDGE_TYPES.concat(['__other__'])),
    tagFilter: new Set(),
    clusterFilter: new Set(),
    query: '',
    matches: [],
    selected: null,
    focusRecall: true
  };
  // A recall on the overview opens the clusters that hold its hits, best hit first, so the
  // hits are drawn labelled among their clusters' members (a lazy page draws the members it
  // holds: a sample and the hits), as long as that stays readable: at most RECALL_OPEN
  // clusters and RECALL_MEMBERS members; a hit beyond stays marked on its cluster's tile.
  var RECALL_OPEN = 8, RECALL_MEMBERS = 600;
  var recallOpened = [];
  if (state.overview && recallHitIds.size) {
    var drawnMembers = 0;
    recallHits.forEach(function (h) {
      var n = h.node;
      if (!n || n.type !== 'memory' || state.expanded.has(n.group)) return;
      var c = groupNode(n.group);
      if (!c || recallOpened.length >= RECALL_OPEN) return;
      if (recallOpened.length && drawnMembers + c.members.length > RECALL_MEMBERS) return;
      state.expanded.add(n.group);
      recallOpened.push(c);
      drawnMembers += c.members.length;
    });
  }

  function memoryFiltersActive() {
    return state.kinds.size !== allKinds.length || !state.showActive || !state.showInactive ||
      state.tagFilter.size > 0 || state.clusterFilter.size > 0;
  }
  function memoryPasses(m) {
    if (!state.kinds.has(m.kind) && allKinds.indexOf(m.kind) !== -1) return false;
    if (m.active ? !state.showActive : !state.showInactive) return false;
    if (state.clusterFilter.size && !state.clusterFilter.has(m.group)) return false;
    if (state.tagFilter.size) {
      var ok = false;
      for (var i = 0; i < m.tagIds.length; i++) if (state.tagFilter.has(m.tagIds[i])) { ok = true; break; }
      if (!ok) return false;
    }
    return true;
  }
  function isCollapsed(groupId) { return state.overview && !state.expanded.has(groupId); }
  function isOpen(n) {
    if (n.type === 'tag') return !state.overview || state.expandedTags.has(n.id);
    return !isCollapsed(n.id);
  }
  function openTagOf(m) {
    if (!state.expandedTags.size) return null;
    for (var i = 0; i < m.tagIds.length; i++) if (state.expandedTags.has(m.tagIds[i])) return m.tagIds[i];
    return null;
  }
  // A memory is drawn on its own when its group is open, when one of its tags is open, or (lazy
  // page) when recall found it; otherwise its collapsed group stands for it.
  function drawnAlone(m) {
    return !isCollapsed(m.group) || openTagOf(m) !== null || (LAZY && recallHitIds.has(m.id));
  }
  // What a collapsed group's tile counts: its members passing the filters, active and inactive
  // apart. A lazy page counts from the store (the status filter applies; it holds few members).
  function tileCounts(g, passCount) {
    if (LAZY) return { a: state.showActive ? g.activeCount : 0, i: state.showInactive ? g.inactiveCount : 0 };
    return passCount.get(g.id) || { a: 0, i: 0 };
  }

  // Computes which nodes/edges should be rendered. Hidden-but-passing memories are represented by
  // their (collapsed) cluster node; edges are re-routed to representatives and merged.
  function computeView() {
    var rep = new Map();
    var visible = new Map();          // id -> descriptor
    var passCount = new Map();        // group id -> {a: active, i: inactive} passing the filters
    var pos = new Map();              // memory id -> position, for members drawn around a tag
    var filtersOn = memoryFiltersActive();
    var tagsOfPassing = new Set();
    var aroundTag = new Map();
    memories.forEach(function (m) {
      if (!memoryPasses(m)) return;
      m.tagIds.forEach(function (t) { tagsOfPassing.add(t); });
      var pc = passCount.get(m.group);
      if (!pc) { pc = { a: 0, i: 0 }; passCount.set(m.group, pc); }
      if (m.active) pc.a++; else pc.i++;
      if (!drawnAlone(m)) {
        rep.set(m.id, m.group);
        return;
      }
      rep.set(m.id, m.id);
      visible.set(m.id, m);
      if (isCollapsed(m.group)) {
        var t = openTagOf(m);
        if (t) { if (!aroundTag.has(t)) aroundTag.set(t, []); aroundTag.get(t).push(m); }
      }
    });
    // Open tags (in the order they were opened) draw their members beside the layout, each
    // tag heading its own grid.
    var x0 = layoutRight + GAP;
    state.expandedTags.forEach(function (tid) {
      var t = byId.get(tid), list = aroundTag.get(tid) || [];
      if (!t) return;
      list.sort(function (a, b) { return a.order - b.order; });
      var box = gridBox(list.length);
      pos.set(tid, { x: x0 + box.w / 2, y: layoutTop - overviewTagSize(t) / 2 });
      list.forEach(function (m, i) { pos.set(m.id, cellAt(x0, layoutTop + HEAD, box.cols, i)); });
      x0 += box.w + GAP;
    });
    var groupList = clusters.slice();
    if (noCluster) groupList.push(noCluster);
    groupList.forEach(function (c) {
      if (isCollapsed(c.id)) {
        if (LAZY && state.clusterFilter.size && !state.clusterFilter.has(c.id)) return;
        var tc = tileCounts(c, passCount);
        if (tc.a + tc.i > 0) { visible.set(c.id, c); rep.set(c.id, c.id); pos.set(c.id, { x: c.tileX, y: c.tileY }); }
        return;
      }
      if (c.synthetic) return;   // expanded "unclustered" group has no node of its own
      if (!state.showClusters) return;
      if (state.clusterFilter.size && !state.clusterFilter.has(c.id)) return;
      visible.set(c.id, c); rep.set(c.id, c.id);
    });
    var topTags = null;
    if (state.overview) {
      topTags = new Set(overviewTags.map(function (t) { return t.id; }));
      overviewTags.forEach(function (t) { if (!pos.has(t.id)) pos.set(t.id, { x: t.ovX, y: t.ovY }); });
    }
    if (state.showTags) {
      tags.forEach(function (t) {
        if (state.tagFilter.size && !state.tagFilter.has(t.id)) return;
        var ok = tagsOfPassing.has(t.id) || (!filtersOn && t.memberIds.size === 0) ||
          (LAZY && ((state.showActive && t.activeCount > 0) || (state.showInactive && t.inactiveCount > 0)));
        if (!ok) return;
        // The overview draws the busiest tags and the open ones, not every tag of every member.
        if (topTags && !topTags.has(t.id) && !state.expandedTags.has(t.id)) return;
        visible.set(t.id, t); rep.set(t.id, t.id);
      });
    }
    var vEdges = new Map();
    var agg = new Map();
    function addAgg(a, b, type, count) {
      var k = a < b ? a + '\u0001' + b : b + '\u0001' + a;
      var g = agg.get(k);
      if (!g) { g = { id: 'agg:' + k, source: a < b ? a : b, target: a < b ? b : a, count: 0, types: {} }; agg.set(k, g); }
      g.count += count;
      g.types[type] = (g.types[type] || 0) + count;
    }
    function isGroupRep(id) { var n = visible.get(id); return !!n && n.type !== 'memory'; }
    edges.forEach(function (e) {
      var et = EDGE_STYLE[e.type] ? e.type : '__other__';
      if (!state.edgeTypes.has(et)) return;
      var a = rep.get(e.source), b = rep.get(e.target);
      if (!a || !b || a === b) return;
      if (a === e.source && b === e.target) { vEdges.set(e.id, e); return; }
      // Between two groups a lazy page draws the store's counts (below), not its sample's.
      if (LAZY && isGroupRep(a) && isGroupRep(b)) return;
      addAgg(a, b, e.type, 1);
    });
    groupEdges.forEach(function (e) {
      if (!state.edgeTypes.has(EDGE_STYLE[e.type] ? e.type : '__other__')) return;
      var a = groupNode(e.source) || byId.get(e.source), b = byId.get(e.target);
      if (!a || !b || !visible.has(a.id) || !visible.has(b.id)) return;
      if ((a.type === 'cluster' && !isCollapsed(a.id)) || (b.type === 'cluster' && !isCollapsed(b.id))) return;
      addAgg(a.id, b.id, e.type, e.count);
    });
    return { nodes: visible, edges: vEdges, agg: agg, passCount: passCount, pos: pos };
  }

  // ------------------------------------------------------------------ cytoscape
  function countText(a, i) {
    return a.toLocaleString() + (a === 1 ? ' memory' : ' memories') + (i ? ' (+' + i.toLocaleString() + ' inactive)' : '');
  }
  function nodeData(n, view) {
    var d = { id: n.id, type: n.type };
    if (n.type === 'memory') {
      d.label = recallRank.has(n.id) ? recallRank.get(n.id) + '. ' + truncate(n.label, 44) : truncate(n.label, 48);
      if (recallRank.has(n.id)) { d.hitfont = 10; d.hitlabel = d.label; d.hitw = 300; }
      d.color = kindColor[n.kind] || '#7f8c8d';
    } else if (n.type === 'tag') {
      // Sized by its active memories; in the overview the label says how many, in words
      // written whole to the right of the diamond.
      d.label = state.overview ? tagLabel(n) : '#' + truncate(n.label, 32);
      d.size = state.overview ? overviewTagSize(n) : clamp(10 + 3 * Math.sqrt(n.degree), 12, 40);
      d.tmw = state.overview ? Math.round(TAG_COL * tagScale - d.size - 80 * tagScale) : 130;
      d.fitfont = state.overview ? Math.round(Math.min(TAG_FONT * tagScale, d.tmw / (0.6 * d.label.length))) : 9;
      d.font = d.fitfont;
    } else {
      var collapsed = isCollapsed(n.id);
      var tc = collapsed ? tileCounts(n, view.passCount) : { a: n.activeCount, i: 0 };
      d.label = collapsed ? truncate(n.label, 40) + '\n' + countText(tc.a, tc.i) : truncate(n.label, 40);
      // A collapsed cluster fills (most of) the space its members take when expanded; its size
      // follows its active members.
      d.size = collapsed ? tileSize(LAZY ? Math.min(tc.a, LAZY_SLOTS) : tc.a) : 34;
      d.tmw = collapsed ? Math.round(d.size * 0.92) : Math.max(400, n.box ? Math.round(n.box.w) : 170);
      d.boxw = n.box ? Math.round(n.box.w) : 170;
      // The largest font whose wrapped label stays inside the tile (about 0.6 em a character,
      // 1.3 em a line): a small tile with a long label gets a small font, never an overflow.
      d.fitfont = collapsed ? Math.round(clamp(Math.min(d.size * 0.17, 0.8 * d.tmw / Math.sqrt(0.78 * d.label.length)), 3, 90)) : 10;
      d.font = d.fitfont;
    }
    return d;
  }
  function nodeClasses(n) {
    var c = [n.type];
    if (n.type === 'memory' && !n.active) c.push('inactive');
    if (n.type === 'cluster') c.push(isCollapsed(n.id) ? 'collapsed' : 'expanded');
    if (n.type === 'tag' && state.overview && state.expandedTags.has(n.id)) c.push('open');
    if (n.type === 'tag' && state.overview) c.push('ov');
    return c.join(' ');
  }
  function edgeWidth(e) {
    var w = e.weight === null ? 0.5 : clamp(e.weight, 0, 1);
    if (e.type === 'HasTag' || e.type === 'InCluster') return +(0.5 + w * 1.5).toFixed(2);
    return +(1 + w * 4).toFixed(2);
  }

  var bigGraph = nodes.length > 1500;
  function hlBorder(ele) { return Math.max(5, Math.round((ele.data('size') || 18) * 0.05)); }
  var style = [
    { selector: 'node', style: {
      'width': 18, 'height': 18, 'background-color': 'data(color)', 'label': 'data(label)',
      'font-size': 9, 'color': '#1f2a37', 'text-valign': 'bottom', 'text-halign': 'center',
      'text-margin-y': 2, 'text-wrap': 'ellipsis', 'text-max-width': 130,
      'min-zoomed-font-size': 7, 'text-outline-color': '#f8fafc', 'text-outline-width': 2,
      'border-width': 1, 'border-color': '#ffffff'
    } },
    // Memory labels only when few memories are rendered, or for nodes in view when zoomed in
    // (class "labeled", maintained by updateLabels), or for highlighted nodes (below).
    // Memory labels sit right of their node, cut to the grid cell (the whole text on hover).
    // Memories drawn over a collapsed tile (recall hits, open tags' members) stay on top.
    { selector: 'node.memory', style: {
      'label': '', 'width': 16, 'height': 16, 'text-halign': 'right', 'text-valign': 'center',
      'text-margin-x': 5, 'text-margin-y': 0, 'text-max-width': CW - 34, 'z-index': 10
    } },
    { selector: 'node.memory.labeled', style: { 'label': 'data(label)' } },
    { selector: 'node.inactive', style: {
      'opacity': 0.38, 'border-style': 'dashed', 'border-color': '#4b5563', 'border-width': 1.5
    } },
    { selector: 'node.tag', style: {
      'shape': 'diamond', 'background-color': TAG_COLOR, 'width': 'data(size)', 'height': 'data(size)',
      'color': '#9d174d', 'font-weight': 600, 'font-size': 'data(font)', 'min-zoomed-font-size': 5
    } },
    { selector: 'node.tag.open', style: { 'border-width': 3, 'border-color': '#9d174d', 'border-style': 'double' } },
    { selector: 'node.tag.ov', style: {
      'text-halign': 'right', 'text-valign': 'center', 'text-margin-x': 14, 'text-margin-y': 0,
      'text-max-width': 'data(tmw)', 'text-wrap': 'ellipsis', 'min-zoomed-font-size': 0
    } },
    { selector: 'node.cluster', style: {
      'shape': 'round-rectangle', 'background-color': CLUSTER_COLOR, 'background-opacity': 0.9,
      'width': 'data(size)', 'height': 'data(size)', 'color': '#0f172a', 'font-size': 11,
      'font-weight': 700, 'text-wrap': 'wrap', 'text-max-width': 170, 'min-zoomed-font-size': 4,
      'border-width': 2, 'border-color': '#94a3b8'
    } },
    { selector: 'node.cluster.collapsed', style: {
      'background-color': '#475a73', 'color': '#ffffff', 'text-valign': 'center',
      'font-size': 'data(font)', 'text-max-width': 'data(tmw)', 'text-outline-width': 0,
      'min-zoomed-font-size': 0, 'border-width': 2, 'border-color': '#2f3d50', 'background-opacity': 0.92
    } },
    { selector: 'node.cluster.expanded', style: {
      'background-opacity': 0.25, 'border-style': 'dashed', 'border-color': CLUSTER_COLOR,
      'text-valign': 'top', 'text-margin-y': -4, 'font-size': 'data(font)',
      'text-wrap': 'ellipsis', 'text-max-width': 'data(tmw)', 'min-zoomed-font-size': 0
    } },
    { selector: 'edge', style: {
      'width': 'data(w)', 'line-color': '#9aa5b1', 'curve-style': 'straight', 'opacity': 0.75,
      'target-arrow-shape': 'none', 'arrow-scale': 0.8
    } },
    { selector: 'edge.agg', style: {
      'line-color': AGG_COLOR, 'opacity': 0.45, 'curve-style': 'haystack', 'haystack-radius': 0
    } }
  ];
  EDGE_TYPES.forEach(function (t) {
    var s = EDGE_STYLE[t];
    var st = { 'line-color': s.color, 'line-style': s.line };
    if (s.fast) { st['curve-style'] = 'haystack'; st['haystack-radius'] = 0; st['opacity'] = 0.6; }
    // Links between memories cross the labelled grids: lighter, so the labels stay readable.
    if (s.opacity) st['opacity'] = s.opacity;
    if (s.arrow !== 'none') { st['target-arrow-shape'] = s.arrow; st['target-arrow-color'] = s.color; }
    if (s.line === 'dashed') st['line-dash-pattern'] = [6, 3];
    style.push({ selector: 'edge.t-' + t, style: st });
  });
  style.push(
    { selector: 'node.recall-path', style: { 'border-width': 3, 'border-color': RECALL_COLOR, 'border-style': 'solid', 'opacity': 1 } },
    { selector: 'node.recall-hit', style: {
      'border-width': 5, 'border-color': RECALL_COLOR, 'border-style': 'solid', 'opacity': 1,
      'width': 26, 'height': 26, 'font-weight': 700, 'font-size': 10, 'min-zoomed-font-size': 3
    } },
    // A hit's label stays readable at any zoom (updateTileFonts), on a backing so that it reads
    // over the grid it sits in and over another hit's label.
    { selector: 'node.memory.recall-hit', style: {
      'label': 'data(hitlabel)', 'font-size': 'data(hitfont)', 'text-max-width': 'data(hitw)', 'min-zoomed-font-size': 0, 'z-index': 40,
      'text-background-color': '#fffbeb', 'text-background-opacity': 0.92,
      'text-background-padding': 2, 'text-background-shape': 'round-rectangle'
    } },
    { selector: 'edge.recall-path', style: {
      'line-color': RECALL_COLOR, 'target-arrow-color': RECALL_COLOR, 'width': 4, 'opacity': 1,
      'curve-style': 'straight', 'z-index': 10
    } },
    { selector: 'node.memory.match, node.memory.focus-neighbor, node.memory:selected', style: {
      'label': 'data(label)'
    } },
    { selector: 'node.match', style: {
      'border-width': 5, 'border-color': MATCH_COLOR, 'border-style': 'solid', 'opacity': 1,
      'min-zoomed-font-size': 3, 'z-index': 20
    } },
    { selector: 'node.contains-match', style: { 'border-width': hlBorder, 'border-color': MATCH_COLOR, 'opacity': 1 } },
    { selector: 'node.contains-recall', style: { 'border-width': hlBorder, 'border-color': RECALL_COLOR, 'opacity': 1 } },
    { selector: '.faded', style: { 'opacity': 0.12, 'text-opacity': 0 } },
    { selector: 'node.focus-neighbor', style: { 'min-zoomed-font-size': 3 } },
    { selector: 'node:selected', style: {
      'border-width': 5, 'border-color': '#2563eb', 'border-style': 'solid', 'opacity': 1,
      'min-zoomed-font-size': 2, 'z-index': 30
    } },
    { selector: 'edge.focus-edge', style: { 'opacity': 1, 'z-index': 9 } }
  );

  var cy = cytoscape({
    container: $('cy'),
    elements: [],
    style: style,
    layout: { name: 'preset' },
    minZoom: 0.02,
    maxZoom: 4,
    wheelSensitivity: 0.3,
    boxSelectionEnabled: false,
    selectionType: 'single',
    textureOnViewport: bigGraph,
    hideEdgesOnViewport: bigGraph,
    motionBlur: false,
    pixelRatio: bigGraph ? 1 : 'auto'
  });

  function sync() {
    var view = computeView();
    cy.batch(function () {
      var toRemove = cy.collection();
      cy.nodes().forEach(function (n) { if (!view.nodes.has(n.id())) toRemove.merge(n); });
      cy.edges().forEach(function (e) {
        var id = e.id();
        var keep = e.hasClass('agg') ? view.agg.has(id.slice(4)) : view.edges.has(id);
        if (!keep) toRemove.merge(e);
      });
      cy.remove(toRemove);
      var add = [];
      view.nodes.forEach(function (n, id) {
        var existing = cy.getElementById(id);
        if (existing.nonempty()) {
          // Only cluster nodes change (collapsed/expanded, member count); leave the rest alone so
          // that thousands of elements are not restyled.
          var want = view.pos.get(id) || { x: n.x, y: n.y }, at = existing.position();
          if (Math.abs(want.x - at.x) > 0.5 || Math.abs(want.y - at.y) > 0.5) existing.position(want);
          if (n.type !== 'memory') {
            var d = nodeData(n, view), old = existing.data();
            if (d.label !== old.label || d.size !== old.size || d.fitfont !== old.fitfont) existing.data(d);
            var col = isCollapsed(n.id);
            if (n.type === 'cluster' && existing.hasClass('collapsed') !== col) {
              existing.toggleClass('collapsed', col).toggleClass('expanded', !col);
            }
            if (n.type === 'tag') {
              existing.toggleClass('open', state.overview && state.expandedTags.has(n.id));
              existing.toggleClass('ov', state.overview);
            }
          }
        } else {
          add.push({ group: 'nodes', data: nodeData(n, view), position: view.pos.get(id) || { x: n.x, y: n.y }, classes: nodeClasses(n) });
        }
      });
      view.edges.forEach(function (e, id) {
        if (cy.getElementById(id).nonempty()) return;
        add.push({ group: 'edges', data: { id: id, source: e.source, target: e.target, w: edgeWidth(e) },
          classes: 't-' + (EDGE_STYLE[e.type] ? e.type : 'other') });
      });
      view.agg.forEach(function (g) {
        var w = +clamp(0.8 + Math.log(1 + g.count) * 0.9, 0.8, 8).toFixed(2);
        var existing = cy.getElementById(g.id);
        if (existing.nonempty()) { existing.data('w', w); return; }
        add.push({ group: 'edges', data: { id: g.id, source: g.source, target: g.target, w: w }, classes: 'agg' });
      });
      if (add.length) cy.add(add);
    });
    decorate();
    updateLabels();
    updateTileFonts();
    updateStats();
  }

  // Labels for memory nodes: all of them when at most LABEL_ALL are rendered; otherwise only the
  // ones inside the viewport once zoomed in enough to read them (bounded to LABEL_MAX).
  var LABEL_ALL = num(options.label_all_max, 400), LABEL_MAX = 400;
  var labelTimer = null;
  function updateLabels() {
    var mems = cy.nodes('.memory');
    cy.batch(function () {
      if (mems.length <= LABEL_ALL) { mems.addClass('labeled'); return; }
      var labeled = cy.nodes('.labeled');
      var want = cy.collection();
      if (cy.zoom() >= 1.4) {
        var ext = cy.extent();
        mems.forEach(function (n) {
          if (want.length >= LABEL_MAX) return;
          var p = n.position();
          if (p.x >= ext.x1 && p.x <= ext.x2 && p.y >= ext.y1 && p.y <= ext.y2) want.merge(n);
        });
      }
      labeled.difference(want).removeClass('labeled');
      want.addClass('labeled');
    });
  }
  // Collapsed cluster tiles are large; keep their label at a readable on-screen size (about
  // 14px) instead of letting it scale with the tile when zoomed in, and never past the tile.
  // The overview's tag names stay about 12px on screen at any zoom, as far as their row and
  // column leave room.
  function updateTileFonts() {
    var z = cy.zoom();
    cy.batch(function () {
      cy.nodes('.cluster.collapsed').forEach(function (n) {
        var f = Math.round(clamp(Math.min(n.data('fitfont') || 10, 14 / z), 3, 90));
        if (f !== n.data('font')) n.data('font', f);
      });
      // An open cluster's name heads its grid, readable at any zoom (about 12px).
      cy.nodes('.cluster.expanded').forEach(function (n) {
        var f = Math.round(clamp(12 / z, 10, 4000));
        if (f !== n.data('font')) n.data('font', f);
        var w = Math.round(Math.max(n.data('boxw') || 170, 260 / z));
        if (w !== n.data('tmw')) n.data('tmw', w);
      });
      // Hits' labels, best first; one that would cover a better hit's label on screen is left
      // out, and the better one says how many it stands for ("+2"): zoom in to see them.
      var hits = cy.nodes('.memory.recall-hit').sort(function (a, b) {
        return (recallRank.get(a.id()) || 0) - (recallRank.get(b.id()) || 0);
      });
      var placed = [];
      var f = Math.round(clamp(12 / z, 10, 4000));
      var hw = Math.round(Math.max(300, 320 / z));
      hits.forEach(function (n) {
        if (f !== n.data('hitfont')) n.data('hitfont', f);
        if (hw !== n.data('hitw')) n.data('hitw', hw);
        var p = n.renderedPosition(), text = n.data('label') || '';
        var box = { x1: p.x, x2: p.x + 24 + Math.min(7 * text.length, 320), y1: p.y - 10, y2: p.y + 10 };
        var under = null;
        for (var i = 0; i < placed.length && !under; i++) {
          var o = placed[i];
          if (box.x1 < o.x2 && o.x1 < box.x2 && box.y1 < o.y2 && o.y1 < box.y2) under = o;
        }
        if (under) { under.more++; n.data('hitlabel', ''); return; }
        box.node = n; box.more = 0; box.text = text;
        placed.push(box);
      });
      placed.forEach(function (b) {
        var want = b.more ? b.text + '  (+' + b.more + ')' : b.text;
        if (b.node.data('hitlabel') !== want) b.node.data('hitlabel', want);
      });
      cy.nodes('.tag.ov').forEach(function (n) {
        var room = Math.min(TAG_ROW * tagScale * 0.7, n.data('tmw') / (0.6 * n.data('label').length));
        var f = Math.round(clamp(12 / z, 4, room));
        if (f !== n.data('font')) n.data('font', f);
      });
    });
  }
  cy.on('viewport', function () {
    clearTimeout(labelTimer);
    labelTimer = setTimeout(function () {
      updateTileFonts();
      if (cy.nodes('.memory').length > LABEL_ALL) updateLabels();
    }, 150);
  });

  // Highlight classes: recall, search matches, selection focus.
  // Only elements whose highlight classes change are touched (restyling thousands of elements
  // is the expensive part). Dimming of non-focused elements is skipped when more than
  // FADE_MAX elements are rendered; highlights still apply.
  var FADE_MAX = num(options.fade_max, 12000);
  var applied = {};
  function setClass(cls, coll) {
    var prev = applied[cls];
    if (prev) {
      prev = prev.filter(function (e) { return e.inside(); });
      prev.difference(coll).removeClass(cls);
      coll.difference(prev).addClass(cls);
    } else {
      cy.elements('.' + cls).difference(coll).removeClass(cls);
      coll.addClass(cls);
    }
    applied[cls] = coll;
  }
  function byIds(ids) {
    var c = cy.collection();
    ids.forEach(function (id) { var e = cy.getElementById(id); if (e.nonempty()) c.merge(e); });
    return c;
  }
  function decorate() {
    function repOf(id) {
      var n = byId.get(id);
      if (n && n.type === 'memory' && !drawnAlone(n)) return n.group;
      return id;
    }
    var hit = [], containsRecall = [], match = [], containsMatch = [];
    if (recall) {
      recallHitIds.forEach(function (id) {
        var r = repOf(id);
        if (r !== id) containsRecall.push(r); else hit.push(id);
      });
    }
    var matchReps = new Set();
    state.matches.forEach(function (n) {
      var r = repOf(n.id);
      matchReps.add(r);
      if (r === n.id) match.push(r); else containsMatch.push(r);
    });
    var recallPath = recall ? byIds(recallPathNodes).union(byIds(recallPathEdges)) : cy.collection();
    var recallHit = byIds(hit), recallContains = byIds(containsRecall);
    var focusNodes = null, focusEdges = null, neighbors = cy.collection();
    if (state.selected && cy.getElementById(state.selected).nonempty()) {
      var sel = cy.getElementById(state.selected);
      focusNodes = sel.closedNeighborhood().nodes();
      focusEdges = sel.connectedEdges();
      neighbors = focusNodes;
    } else if (state.query && matchReps.size) {
      focusNodes = byIds(matchReps);
      focusEdges = focusNodes.edgesWith(focusNodes);
    } else if (recall && state.focusRecall && (recallPathNodes.size || recallHitIds.size)) {
      focusNodes = recallPath.nodes().union(recallHit).union(recallContains)
        .union(byIds(recallOpened.filter(function (g) { return !g.synthetic; }).map(function (g) { return g.id; })));
      focusEdges = recallPath.edges();
    }
    var faded = cy.collection();
    if (focusNodes && focusNodes.nonempty() && cy.elements().length <= FADE_MAX) {
      faded = cy.elements().difference(focusNodes).difference(focusEdges);
    }
    cy.batch(function () {
      setClass('recall-path', recallPath);
      setClass('recall-hit', recallHit);
      setClass('contains-recall', recallContains);
      setClass('match', byIds(match));
      setClass('contains-match', byIds(containsMatch));
      setClass('focus-neighbor', neighbors);
      setClass('focus-edge', focusEdges || cy.collection());
      setClass('faded', faded);
    });
  }

  // ------------------------------------------------------------------ UI: stats & mode
  function updateStats() {
    var shown = cy.nodes().length;
    var stored = TOTALS ? num(TOTALS.memories, memories.length) : memories.length;
    var all = nodes.length + (state.overview && noCluster ? 1 : 0);
    $('stats').textContent = 'showing ' + shown.toLocaleString() + ' of ' + all.toLocaleString() +
      ' nodes \u00b7 ' + cy.edges().length.toLocaleString() + ' edges \u00b7 ' +
      (LAZY ? memories.length.toLocaleString() + ' of ' + stored.toLocaleString() + ' memories loaded'
        : memories.length.toLocaleString() + ' memories');
    $('btn-overview').classList.toggle('active', state.overview);
    $('btn-all').classList.toggle('active', !state.overview);
    var banner = $('mode-banner');
    if (state.overview) {
      banner.hidden = false;
      banner.textContent = 'Overview of ' + stored.toLocaleString() + ' memories in ' +
        plural(clusters.length, 'cluster') + ' \u2014 click a cluster or tag to open it';
    } else {
      banner.hidden = true;
    }
    $('empty-msg').hidden = shown > 0;
  }

  // Viewport that fits `eles` computed from node positions and sizes only (cy.fit would measure
  // every label, which costs seconds at thousands of nodes).
  function fitViewport(eles, padding) {
    var x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
    eles.nodes().forEach(function (n) {
      var p = n.position(), r = (n.data('size') || 18) / 2 + 8;
      // Labels are wider than their nodes (a memory's runs to its right).
      var lx = n.hasClass('collapsed') ? 0 : (n.hasClass('memory') || n.hasClass('ov') ? 0 : 45);
      var rx = n.hasClass('collapsed') ? 0 : (n.hasClass('memory') ? CW - 20 : 45);
      // An overview tag's name runs to its right, in about its fitted font.
      if (n.hasClass('ov')) rx = 14 + 0.6 * (n.data('fitfont') || 9) * n.data('label').length;
      if (p.x - r - lx < x1) x1 = p.x - r - lx;
      if (p.y - r < y1) y1 = p.y - r;
      if (p.x + r + rx > x2) x2 = p.x + r + rx;
      if (p.y + r + 14 > y2) y2 = p.y + r + 14;   // room for the label below
    });
    if (!isFinite(x1)) return null;
    var w = cy.width(), h = cy.height();
    var zoom = Math.min((w - 2 * padding) / Math.max(x2 - x1, 1), (h - 2 * padding) / Math.max(y2 - y1, 1));
    zoom = clamp(zoom, cy.minZoom(), Math.min(cy.maxZoom(), 2));
    return { zoom: zoom, pan: { x: (w - zoom * (x1 + x2)) / 2, y: (h - zoom * (y1 + y2)) / 2 } };
  }
  function fitTo(eles, padding, animate) {
    cy.stop(true, false);
    var vp = fitViewport(eles, padding);
    if (!vp) return;
    if (animate) cy.animate(vp, { duration: 250 });
    else cy.viewport(vp);
  }
  function fitAll(animate) { fitTo(cy.nodes(), 40, animate); }

  function setOverview(on) {
    // A lazy page holds only part of the store: it stays an overview.
    if (LAZY && !on) return false;
    state.overview = !!on;
    if (!on) { state.expanded.clear(); state.expandedTags.clear(); }
    sync();
    fitAll(false);
    return true;
  }
  // A cluster, the unclustered group or a tag: what a click on it opens.
  function groupOf(id) {
    var n = groupNode(id);
    if (n && n.type !== 'memory') return n;
    n = byId.get(id);
    return n && n.type === 'tag' ? n : null;
  }
  function membersOf(g) {
    if (g.type !== 'tag') return g.members;
    return Array.from(g.memberIds).map(function (id) { return byId.get(id); });
  }
  function fitMembers(g) {
    var eles = cy.collection();
    membersOf(g).forEach(function (m) { eles.merge(cy.getElementById(m.id)); });
    if (!g.synthetic) eles.merge(cy.getElementById(g.id));
    if (eles.nonempty()) fitTo(eles, 60, true);
  }
  function expand(groupId) {
    var g = groupOf(str(groupId));
    if (!g) return false;
    if (!state.overview) return true;
    if (g.type === 'tag') state.expandedTags.add(g.id); else state.expanded.add(g.id);
    sync();
    fitMembers(g);
    // A served page fetches the members it does not hold yet (one page at a time).
    if (FETCH && g.next === undefined && g.loaded < g.activeCount + g.inactiveCount) {
      loadMore(g.id, function () { if (isOpen(g)) fitMembers(g); });
    }
    return true;
  }
  function collapse(groupId) {
    var g = groupOf(str(groupId));
    if (!state.overview || !g || !isOpen(g)) return false;
    if (g.type === 'tag') state.expandedTags.delete(g.id); else state.expanded.delete(g.id);
    if (state.selected) {
      var s = byId.get(state.selected);
      if (s && s.type === 'memory' && !drawnAlone(s)) state.selected = null;
    }
    sync();
    return true;
  }

  // ------------------------------------------------------------------ members on demand
  var inflight = 0;
  function loadMore(groupId, done) {
    var g = groupOf(str(groupId));
    if (!FETCH || !g || g.loading || g.next === null) return false;
    g.loading = true;
    g.error = null;
    inflight++;
    var url = 'members?group=' + encodeURIComponent(g.id) + '&offset=' + (g.next || 0);
    fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error(str(body && body.error) || ('HTTP ' + r.status));
          return body;
        });
      })
      .then(function (body) {
        (Array.isArray(body.nodes) ? body.nodes : []).forEach(ingestNode);
        (Array.isArray(body.edges) ? body.edges : []).forEach(ingestEdge);
        g.next = typeof body.next === 'number' ? body.next : null;
        derive();
        layoutGroups.forEach(function (lg) { layoutMembers(lg.node); });
      })
      .catch(function (err) {
        g.error = str(err && err.message ? err.message : err);
        console.warn('graphmem: cannot load the members of ' + g.id + ': ' + g.error);
      })
      .then(function () {
        g.loading = false;
        inflight--;
        sync();
        if (state.query) runSearch(state.query);
        if (state.selected === g.id) renderDetails(g);
        if (done) done();
      });
    return true;
  }

  // ------------------------------------------------------------------ UI: search
  function runSearch(q) {
    state.query = str(q).trim();
    var ql = state.query.toLowerCase();
    var matches = [];
    if (ql) {
      nodes.forEach(function (n) {
        if (n.type === 'memory' && !memoryPasses(n)) return;
        if (n.search && n.search.indexOf(ql) !== -1) matches.push(n);
      });
    }
    state.matches = matches;
    var countEl = $('search-count');
    countEl.setAttribute('data-count', String(matches.length));
    var list = $('search-results');
    clear(list);
    if (!ql) {
      countEl.textContent = '';
    } else {
      var hidden = matches.filter(function (n) { return n.type === 'memory' && !drawnAlone(n); }).length;
      countEl.textContent = plural(matches.length, 'match') +
        (hidden ? ' \u00b7 ' + hidden + ' inside collapsed clusters' : '');
      matches.slice(0, 100).forEach(function (n) {
        list.appendChild(el('li', { title: n.label, onclick: function () { select(n.id); } }, [
          swatchFor(n), ' ', n.type === 'tag' ? '#' + n.label : n.label
        ]));
      });
      if (matches.length > 100) list.appendChild(el('li', { className: 'muted', text: '\u2026 ' + (matches.length - 100) + ' more' }));
    }
    decorate();
    cy.stop(true, false);
    if (matches.length) {
      var focus = cy.nodes('.match, .contains-match');
      if (focus.length === 1) {
        cy.animate({ center: { eles: focus }, zoom: Math.max(cy.zoom(), 1.2) }, { duration: 250 });
      } else if (focus.length > 1) {
        fitTo(focus, 60, true);
      }
    }
    return matches.length;
  }

  function swatchFor(n) {
    if (n.type === 'tag') return el('span', { className: 'swatch diamond', style: 'background:' + TAG_COLOR });
    if (n.type === 'cluster') return el('span', { className: 'swatch roundrect', style: 'background:' + CLUSTER_COLOR });
    return el('span', { className: 'swatch' + (n.active ? '' : ' dim'), style: 'background:' + (kindColor[n.kind] || '#7f8c8d') });
  }

  // ------------------------------------------------------------------ UI: details
  function nodeRef(id) {
    var n = byId.get(id) || (id === NO_CLUSTER ? noCluster : null);
    var label = n ? (n.type === 'tag' ? '#' + n.label : n.label) : id;
    return el('span', { className: 'edge-other', title: label }, [n ? swatchFor(n) : null, ' ', label]);
  }

  // Open/close and (lazy page) how many members the page holds, with a button for more.
  function groupActions(box, n) {
    if (!state.overview) return;
    var open = isOpen(n);
    box.appendChild(el('button', {
      type: 'button', id: 'btn-toggle-cluster', text: open ? 'Collapse' : 'Expand members',
      onclick: function () { if (open) collapse(n.id); else expand(n.id); renderDetails(n); }
    }));
    if (!LAZY) return;
    var total = n.activeCount + n.inactiveCount;
    var held = n.type === 'tag' ? n.memberIds.size : n.members.length;
    var line = el('div', { className: 'muted small', id: 'details-loaded', 'data-loaded': String(held) });
    line.textContent = 'The page holds ' + held.toLocaleString() + ' of ' + total.toLocaleString() + ' members';
    if (n.loading) line.textContent += ' \u00b7 loading\u2026';
    else if (n.error) line.textContent += ' \u00b7 could not load more: ' + n.error;
    box.appendChild(line);
    if (FETCH && n.next !== null && held < total && !n.loading) {
      box.appendChild(el('button', {
        type: 'button', id: 'btn-load-more', text: 'Load more',
        onclick: function () { if (!isOpen(n)) expand(n.id); else loadMore(n.id); renderDetails(n); }
      }));
    } else if (!FETCH && held < total) {
      box.appendChild(el('div', { className: 'muted small', text: 'This page holds a sample; graphmem viz --serve opens every member.' }));
    }
  }

  function renderDetails(n) {
    var box = $('details');
    clear(box);
    box.appendChild(el('div', { className: 'panel-title', text: 'Details' }));
    if (!n) {
      box.appendChild(el('p', { className: 'muted', text: 'Click a node to see its content, metadata and edges.' }));
      return;
    }
    box.setAttribute('data-node-id', n.id);
    box.appendChild(el('h2', { text: n.type === 'tag' ? '#' + n.label : n.label }));
    var badges = el('div', { className: 'badges' });
    box.appendChild(badges);
    if (n.type === 'memory') {
      badges.appendChild(el('span', { className: 'badge', style: 'background:' + (kindColor[n.kind] || '#7f8c8d'), text: n.kind }));
      badges.appendChild(el('span', { className: 'badge ' + (n.active ? 'light' : 'warn'), text: n.active ? 'active' : 'inactive / superseded' }));
      if (!memoryPasses(n)) badges.appendChild(el('span', { className: 'badge warn', text: 'hidden by filters' }));
      box.appendChild(el('div', { className: 'section-h', text: 'Content' }));
      box.appendChild(el('div', { className: 'content', text: n.content || '(empty)' }));
      if (n.cluster) {
        box.appendChild(el('div', { className: 'section-h', text: 'Cluster' }));
        var c = byId.get(n.cluster);
        box.appendChild(el('span', { className: 'chip cluster', text: c.label, onclick: function () { select(c.id); } }));
      }
      if (n.allTagNames.length) {
        box.appendChild(el('div', { className: 'section-h', text: 'Tags' }));
        var tagWrap = el('div');
        n.allTagNames.forEach(function (name) {
          var t = tagByName.get(name);
          tagWrap.appendChild(el('span', { className: 'chip', text: '#' + name, onclick: t ? function () { select(t.id); } : null }));
        });
        box.appendChild(tagWrap);
      }
      var meta = [['id', n.id]];
      Object.keys(n.meta).forEach(function (k) { meta.push([k, n.meta[k]]); });
      box.appendChild(el('div', { className: 'section-h', text: 'Metadata' }));
      box.appendChild(el('table', { className: 'meta' }, meta.map(function (kv) {
        return el('tr', null, [el('td', { text: kv[0] }), el('td', { text: fmtValue(kv[1]) })]);
      })));
    } else {
      var isTag = n.type === 'tag';
      badges.appendChild(isTag ? el('span', { className: 'badge', style: 'background:' + TAG_COLOR, text: 'tag' })
        : el('span', { className: 'badge', style: 'background:' + CLUSTER_COLOR, text: 'cluster' }));
      if (isTag && n.kind) badges.appendChild(el('span', { className: 'badge light', text: n.kind }));
      // Counts are of active memories; inactive ones are counted apart.
      badges.appendChild(el('span', { className: 'badge light', id: 'details-count', 'data-active': String(n.activeCount),
        'data-inactive': String(n.inactiveCount), text: countText(n.activeCount, n.inactiveCount) }));
      groupActions(box, n);
      if (!n.synthetic) box.appendChild(el('table', { className: 'meta' }, [el('tr', null, [el('td', { text: 'id' }), el('td', { text: n.id })])]));
      if (n.synthetic || (LAZY && !isTag)) {
        var held = membersOf(n);
        box.appendChild(el('div', { className: 'section-h', text: 'Members' }));
        box.appendChild(el('ul', { className: 'item-list' }, held.slice(0, 200).map(function (m) {
          return el('li', { onclick: function () { select(m.id); } }, [swatchFor(m), ' ', m.label]);
        })));
      }
    }
    // Edge list (from the full data, not only what is rendered).
    var list = n.edges.slice().sort(function (a, b) {
      var ta = EDGE_TYPES.indexOf(a.type), tb = EDGE_TYPES.indexOf(b.type);
      if (ta !== tb) return (ta === -1 ? 99 : ta) - (tb === -1 ? 99 : tb);
      return num(b.weight, -1) - num(a.weight, -1);
    });
    box.appendChild(el('div', { className: 'section-h', text: 'Edges (' + list.length + ')' }));
    var ul = el('ul', { className: 'edge-list', id: 'details-edges' });
    var LIMIT = 300;
    list.slice(0, LIMIT).forEach(function (e) {
      var out = e.source === n.id;
      var other = out ? e.target : e.source;
      var s = EDGE_STYLE[e.type] || OTHER_EDGE_STYLE;
      ul.appendChild(el('li', {
        'data-edge-id': e.id, 'data-edge-type': e.type, 'data-other': other,
        title: e.type + (out ? ' \u2192 ' : ' \u2190 ') + other,
        onclick: function () { select(other); }
      }, [
        el('span', { className: 'edge-type', style: 'color:' + (s.text || s.color), text: e.type }),
        el('span', { className: 'muted', text: out ? '\u2192' : '\u2190' }),
        nodeRef(other),
        el('span', { className: 'edge-weight', text: e.weight === null ? '' : 'w ' + fmtWeight(e.weight) })
      ]));
    });
    if (list.length > LIMIT) ul.appendChild(el('li', { className: 'muted', text: '\u2026 ' + (list.length - LIMIT) + ' more' }));
    box.appendChild(ul);
    box.scrollTop = 0;
  }

  function select(id) {
    id = str(id);
    var n = byId.get(id) || (id === NO_CLUSTER ? noCluster : null);
    if (!n) return false;
    if (n.type === 'memory' && !drawnAlone(n) && memoryPasses(n)) {
      state.expanded.add(n.group);
      sync();
    }
    state.selected = id;
    cy.elements(':selected').unselect();
    var ele = cy.getElementById(id);
    if (ele.nonempty()) ele.select();
    decorate();
    renderDetails(n);
    cy.stop(true, false);
    if (ele.nonempty()) cy.animate({ center: { eles: ele }, zoom: Math.max(cy.zoom(), 1.0) }, { duration: 250 });
    return true;
  }
  function unselect() {
    state.selected = null;
    cy.elements(':selected').unselect();
    decorate();
    renderDetails(null);
  }

  // ------------------------------------------------------------------ UI: recall panel
  function renderRecall() {
    var box = $('recall-panel');
    clear(box);
    if (!recall) {
      box.classList.add('empty');
      box.appendChild(el('div', { className: 'panel-title', text: 'Recall' }));
      box.appendChild(el('div', { className: 'muted small', text: 'No recall in this export.' }));
      return;
    }
    var title = el('div', { className: 'panel-title' }, ['Recall \u00b7 ' + plural(recallHits.length, 'hit')]);
    var focusBox = el('input', { type: 'checkbox', id: 'recall-focus' });
    focusBox.checked = state.focusRecall;
    focusBox.addEventListener('change', function () { state.focusRecall = focusBox.checked; decorate(); });
    title.appendChild(el('label', { className: 'check', style: 'text-transform:none;font-weight:400' }, [focusBox, 'focus']));
    box.appendChild(title);
    if (recall.context) box.appendChild(el('div', { className: 'recall-context', text: str(recall.context) }));
    var maxScore = 0;
    recallHits.forEach(function (h) { if (h.score !== null && h.score > maxScore) maxScore = h.score; });
    var ul = el('ul', { className: 'hit-list', id: 'recall-hits' });
    recallHits.forEach(function (h, i) {
      var label = h.node ? h.node.label : h.id + ' (not in graph)';
      var pathText = h.path.map(function (p) {
        var pn = byId.get(p);
        return pn ? (pn.type === 'tag' ? '#' + pn.label : truncate(pn.label, 24)) : p;
      }).join(' \u2192 ');
      var pct = maxScore > 0 && h.score !== null ? clamp(h.score / maxScore, 0, 1) * 100 : 0;
      ul.appendChild(el('li', { 'data-hit-id': h.id, title: label, onclick: function () { if (h.node) select(h.id); } }, [
        el('div', { className: 'hit-head' }, [
          el('span', { className: 'muted', text: (i + 1) + '.' }),
          h.node ? swatchFor(h.node) : null,
          el('span', { className: 'hit-label', text: label }),
          el('span', { className: 'hit-score', text: h.score === null ? '' : h.score.toFixed(3) })
        ]),
        el('div', { className: 'scorebar' }, [el('div', { style: 'width:' + pct.toFixed(1) + '%' })]),
        pathText ? el('div', { className: 'hit-path', text: 'path: ' + pathText, title: pathText }) : null
      ]));
    });
    box.appendChild(ul);
  }

  // ------------------------------------------------------------------ UI: filters & legend
  function checkbox(labelChildren, checked, attrs, onChange) {
    var input = el('input', Object.assign({ type: 'checkbox' }, attrs));
    input.checked = checked;
    input.addEventListener('change', function () { onChange(input.checked); });
    return el('label', { className: 'check' }, [input].concat(labelChildren));
  }
  function refilter() {
    sync();
    if (state.query) runSearch(state.query);
    if (state.selected) {
      var n = byId.get(state.selected);
      if (n) renderDetails(n);
    }
  }
  function buildFilters() {
    var kindBox = $('filter-kinds');
    allKinds.forEach(function (k) {
      kindBox.appendChild(checkbox([el('span', { className: 'swatch', style: 'background:' + kindColor[k] }), k],
        true, { 'data-filter': 'kind', 'data-kind': k, value: k }, function (on) {
          if (on) state.kinds.add(k); else state.kinds.delete(k);
          refilter();
        }));
    });
    if (!allKinds.length) kindBox.appendChild(el('span', { className: 'muted small', text: 'no memories' }));
    var statusBox = $('filter-status');
    statusBox.appendChild(checkbox(['active'], true, { 'data-filter': 'status', value: 'active' }, function (on) { state.showActive = on; refilter(); }));
    statusBox.appendChild(checkbox(['inactive / superseded'], true, { 'data-filter': 'status', value: 'inactive' }, function (on) { state.showInactive = on; refilter(); }));
    var ntBox = $('filter-nodetypes');
    ntBox.appendChild(checkbox(['tags'], true, { 'data-filter': 'nodetype', value: 'tag' }, function (on) { state.showTags = on; refilter(); }));
    ntBox.appendChild(checkbox(['clusters'], true, { 'data-filter': 'nodetype', value: 'cluster', title: 'Collapsed clusters in overview stay visible' }, function (on) { state.showClusters = on; refilter(); }));
    var etBox = $('filter-edgetypes');
    var present = LAZY ? new Set(EDGE_TYPES) : new Set(edges.map(function (e) { return EDGE_STYLE[e.type] ? e.type : '__other__'; }));
    EDGE_TYPES.concat(['__other__']).forEach(function (t) {
      if (!present.has(t)) return;
      var s = EDGE_STYLE[t] || OTHER_EDGE_STYLE;
      etBox.appendChild(checkbox([el('span', { className: 'swatch roundrect', style: 'height:4px;background:' + s.color }), t === '__other__' ? 'other' : t],
        true, { 'data-filter': 'edgetype', value: t }, function (on) {
          if (on) state.edgeTypes.add(t); else state.edgeTypes.delete(t);
          refilter();
        }));
    });
    var tagSel = $('filter-tag');
    tags.slice().sort(function (a, b) { return b.degree - a.degree || (a.label < b.label ? -1 : 1); }).forEach(function (t) {
      tagSel.appendChild(el('option', { value: t.id, text: t.label + ' (' + t.degree + ')' }));
    });
    tagSel.addEventListener('change', function () {
      state.tagFilter = new Set(Array.from(tagSel.selectedOptions).map(function (o) { return o.value; }));
      refilter();
    });
    var clSel = $('filter-cluster');
    clusters.slice().sort(function (a, b) { return b.activeCount - a.activeCount; }).forEach(function (c) {
      clSel.appendChild(el('option', { value: c.id, text: c.label + ' (' + c.activeCount + ')' }));
    });
    if (noCluster) clSel.appendChild(el('option', { value: NO_CLUSTER, text: '(unclustered) (' + noCluster.activeCount + ')' }));
    clSel.addEventListener('change', function () {
      state.clusterFilter = new Set(Array.from(clSel.selectedOptions).map(function (o) { return o.value; }));
      refilter();
    });
    $('filters-reset').addEventListener('click', function () {
      state.kinds = new Set(allKinds);
      state.showActive = state.showInactive = state.showTags = state.showClusters = true;
      state.edgeTypes = new Set(EDGE_TYPES.concat(['__other__']));
      state.tagFilter = new Set(); state.clusterFilter = new Set();
      Array.from(document.querySelectorAll('#filters input[type=checkbox]')).forEach(function (i) { i.checked = true; });
      Array.from(tagSel.options).forEach(function (o) { o.selected = false; });
      Array.from(clSel.options).forEach(function (o) { o.selected = false; });
      refilter();
    });
  }

  function edgeSwatch(s) {
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('width', '28'); svg.setAttribute('height', '10');
    var line = document.createElementNS(ns, 'line');
    line.setAttribute('x1', '1'); line.setAttribute('y1', '5'); line.setAttribute('x2', '27'); line.setAttribute('y2', '5');
    line.setAttribute('stroke', s.color); line.setAttribute('stroke-width', '2.5');
    if (s.line === 'dashed') line.setAttribute('stroke-dasharray', '5 3');
    if (s.line === 'dotted') line.setAttribute('stroke-dasharray', '1.5 2.5');
    svg.appendChild(line);
    return svg;
  }
  function buildLegend() {
    var box = $('legend');
    function row(sw, text, count) {
      return el('div', { className: 'legend-row' }, [sw, el('span', { text: text }),
        count === undefined ? null : el('span', { className: 'count', text: String(count) })]);
    }
    box.appendChild(el('div', { className: 'legend-sub', text: 'Memories (by kind)' }));
    allKinds.forEach(function (k) {
      box.appendChild(row(el('span', { className: 'swatch', style: 'background:' + kindColor[k] }), k, LAZY ? undefined : kindCounts.get(k)));
    });
    var inactive = LAZY ? undefined : memories.filter(function (m) { return !m.active; }).length;
    box.appendChild(row(el('span', { className: 'swatch dim', style: 'background:#2f6fd0' }), 'inactive / superseded (dimmed)', inactive));
    box.appendChild(el('div', { className: 'legend-sub', text: 'Other nodes' }));
    box.appendChild(row(el('span', { className: 'swatch diamond', style: 'background:' + TAG_COLOR }), 'tag (size = active memories)', tags.length));
    box.appendChild(row(el('span', { className: 'swatch roundrect', style: 'background:' + CLUSTER_COLOR }), 'cluster (size = active memories)', clusters.length));
    box.appendChild(el('div', { className: 'legend-sub', text: 'Edges (width = weight)' }));
    var counts = {};
    edges.forEach(function (e) { counts[e.type] = (counts[e.type] || 0) + 1; });
    EDGE_TYPES.forEach(function (t) {
      box.appendChild(row(edgeSwatch(EDGE_STYLE[t]), t + (EDGE_STYLE[t].arrow !== 'none' ? ' (' + EDGE_STYLE[t].arrow + ')' : ''), LAZY ? undefined : counts[t] || 0));
    });
    box.appendChild(row(edgeSwatch({ color: AGG_COLOR, line: 'solid' }), 'aggregated (overview)'));
    box.appendChild(el('div', { className: 'legend-sub', text: 'Highlights' }));
    box.appendChild(row(el('span', { className: 'swatch ring', style: 'border-color:' + MATCH_COLOR }), 'search match'));
    box.appendChild(row(el('span', { className: 'swatch ring', style: 'border-color:' + RECALL_COLOR }), 'recall hit / path'));
    box.appendChild(row(el('span', { className: 'swatch ring', style: 'border-color:#2563eb' }), 'selected'));
  }

  // ------------------------------------------------------------------ events
  // In the overview a click on a cluster or tag opens it (its members are drawn), and shows it.
  cy.on('tap', 'node', function (evt) {
    var id = evt.target.id();
    select(id);
    var g = state.overview ? groupOf(id) : null;
    if (g && !isOpen(g)) { expand(id); if (state.selected === id) renderDetails(g); }
  });
  cy.on('tap', function (evt) { if (evt.target === cy) unselect(); });
  // Labels are cut short on the canvas: the whole label (a memory's text) shows on hover.
  var tip = $('tip');
  function tipText(id) {
    var n = byId.get(id) || (id === NO_CLUSTER ? noCluster : null);
    if (!n) return '';
    if (n.type === 'memory') return truncate(n.content || n.label, 400);
    var name = n.type === 'tag' ? '#' + n.label : n.label;
    return name + ' \u2014 ' + countText(n.activeCount, n.inactiveCount) +
      (state.overview && !isOpen(n) ? ' \u00b7 click to open' : '');
  }
  cy.on('mouseover', 'node', function (evt) {
    var text = tipText(evt.target.id());
    if (!text) return;
    var p = evt.target.renderedPosition();
    tip.textContent = text;
    tip.setAttribute('data-node-id', evt.target.id());
    tip.style.left = Math.round(p.x + 14) + 'px';
    tip.style.top = Math.round(p.y + 14) + 'px';
    tip.hidden = false;
  });
  cy.on('mouseout', 'node', function () { tip.hidden = true; });
  cy.on('viewport', function () { tip.hidden = true; });
  var searchTimer = null;
  var searchInput = $('search');
  searchInput.addEventListener('input', function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { runSearch(searchInput.value); }, 120);
  });
  searchInput.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') {
      clearTimeout(searchTimer);
      runSearch(searchInput.value);
      if (state.matches.length === 1) select(state.matches[0].id);
    } else if (e.key === 'Escape') {
      searchInput.value = '';
      runSearch('');
    }
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === '/' && document.activeElement !== searchInput) { e.preventDefault(); searchInput.focus(); }
    if (e.key === 'Escape' && document.activeElement !== searchInput) unselect();
  });
  $('btn-overview').addEventListener('click', function () { setOverview(true); });
  $('btn-all').addEventListener('click', function () { setOverview(false); });
  $('btn-fit').addEventListener('click', function () { fitAll(true); });

  // ------------------------------------------------------------------ boot
  var api = {
    ready: false,
    nodeCount: function () { return cy.nodes().length; },
    edgeCount: function () { return cy.edges().length; },
    totalNodes: function () { return nodes.length; },
    totalEdges: function () { return edges.length; },
    mode: function () { return state.overview ? 'overview' : 'full'; },
    select: select,
    unselect: unselect,
    search: function (q) { searchInput.value = str(q); return runSearch(q); },
    expand: expand,
    collapse: collapse,
    overview: function () { setOverview(true); },
    showAll: function () { setOverview(false); },
    fit: function () { fitAll(false); },
    visibleIds: function () { return cy.nodes().map(function (n) { return n.id(); }); },
    lazy: LAZY,
    loadMore: loadMore,
    pending: function () { return inflight; },
    // Counts a group's tile or tag stands for: {active, inactive, loaded}.
    counts: function (id) {
      var g = groupOf(str(id));
      if (!g) return null;
      return { active: g.activeCount, inactive: g.inactiveCount, loaded: membersOf(g).length };
    },
    drawnAt: null,
    cy: cy
  };
  window.graphmemViz = api;

  document.title = str(raw.title) || document.title;
  if (LAZY) {
    $('btn-all').disabled = true;
    $('btn-all').title = 'This page holds part of a big store: open clusters and tags one at a time';
  }
  // The first view: the whole graph, or the clusters a recall opened (its hits labelled).
  function fitStart() {
    if (!recallOpened.length) { fitAll(false); return; }
    var eles = cy.collection();
    recallOpened.forEach(function (g) {
      g.members.forEach(function (m) { eles.merge(cy.getElementById(m.id)); });
      if (!g.synthetic) eles.merge(cy.getElementById(g.id));
    });
    recallHitIds.forEach(function (id) { eles.merge(cy.getElementById(id)); });
    fitTo(eles, 40, false);
    updateLabels();
    updateTileFonts();
  }
  buildFilters();
  buildLegend();
  renderRecall();
  sync();
  fitStart();

  // Small graphs without given coordinates: refine the deterministic layout with a short,
  // synchronous force-directed pass (cose, seeded from the current positions, no randomness).
  function refineLayout(done) {
    var anyGiven = nodes.some(function (n) { return 'givenX' in n; });
    var maxForce = num(options.force_layout_max, 400);
    if (anyGiven || state.overview || nodes.length > maxForce || cy.nodes().length < 3) { done(); return; }
    var layout = cy.layout({
      name: 'cose', animate: false, randomize: false, fit: false, numIter: 800,
      nodeRepulsion: function (n) { return n.hasClass('cluster') ? 40000 : 9000; },
      idealEdgeLength: function (e) { return e.hasClass('t-InCluster') ? 90 : (e.hasClass('t-HasTag') ? 70 : 50); },
      edgeElasticity: function (e) { return e.hasClass('t-InCluster') ? 60 : 100; },
      gravity: 0.6, nestingFactor: 1.2, componentSpacing: 60
    });
    layout.one('layoutstop', function () {
      cy.nodes().forEach(function (n) {
        var r = byId.get(n.id());
        if (r) { var p = n.position(); r.x = p.x; r.y = p.y; }
      });
      done();
    });
    layout.run();
  }
  refineLayout(function () {
    fitStart();
    markReady();
  });
  function markReady() {
    requestAnimationFrame(function () {
      requestAnimationFrame(function () {
        api.ready = true;
        // Milliseconds from the start of navigation to the first frame with the graph drawn.
        api.drawnAt = performance.now();
        document.body.setAttribute('data-ready', 'true');
      });
    });
  }
})();
