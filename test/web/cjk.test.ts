import { describe, expect, it } from "vitest";
import { extractHtml } from "../../src/web/fetch/extract.js";

// A Chinese news article as portals lay it out: paragraphs of 60–139 characters (below the 140 a
// Latin paragraph needs to count), between a menu, a sidebar of headlines and a links block, all
// in <div>s rather than <nav>/<aside>.
const PARAGRAPHS = [
  "潮水退去的那个早晨，卡尔斯克镇的渔民在码头上听见了钟声，那声音从海底传来，低沉而缓慢，像是有人在水下数着什么，又像是一个被遗忘的名字。",
  "老守钟人说，钟楼沉没之前，那口钟只响过两次：一次是为了迎接远航归来的船队，一次是为了送别再也没有回来的人，此后便再无声息。",
  "镇上的孩子们不相信这些故事，他们趁着退潮跑到礁石上，把耳朵贴在冰冷的石头上，想要听清楚海底到底藏着什么秘密，直到天黑才肯回家。",
  "第三天夜里，风停了，海面平静得像一面镜子，钟声又一次响起，这一次全镇的人都听见了，连最固执的商人也放下了手里的算盘，走到窗前。",
  "镇长召集了所有的船主，在祠堂里商量了一整夜，争论了很久，最后决定派三条船出海，沿着旧钟楼的方向寻找钟声的来源，天亮就出发。",
  "出海的人回来时带着一截缠满海藻的麻绳和两片生锈的铁铰链，他们说在水下看见了塔尖的影子，却没有找到那口钟，也没有人愿意再下去。",
  "从那以后，每逢大潮，镇上的人都会在码头点起一排灯笼，静静地等待钟声，仿佛那是大海写给他们的一封迟到的信，需要有人去慢慢读。",
  "有人把钟声记在航海日志里，有人把它编成了歌谣，只有守钟人的孙女一直在石头上写下每一次钟响的日子和时辰，一笔一画，从不间断。",
];

const MENU = ["首页", "新闻", "财经", "体育", "娱乐", "科技", "汽车", "房产", "游戏", "教育", "健康", "旅游"];
const HEADLINES = Array.from({ length: 12 }, (_, i) => `热门排行第${i + 1}名：港口城市的夏季航运报告发布`);

const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>海底的钟声_新闻频道</title></head><body>
<div class="header"><div class="menu"><ul>${MENU.map((m, i) => `<li><a href="/c/${i}">${m}</a></li>`).join("")}</ul></div></div>
<div class="wrap">
<div class="sidebar" id="sideBar"><h3>热门排行</h3><ul>${HEADLINES.map((h, i) => `<li><a href="/n/${i}">${h}</a></li>`).join("")}</ul></div>
<div class="qq_article" id="Cnt-Main-Article-QQ">
<h1>海底的钟声</h1>
<div class="a_Info">2025-06-08 08:00 来源：潮汐日报</div>
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("\n")}
</div>
</div>
<div class="links">友情链接：<a href="/l/1">港务局</a> <a href="/l/2">海事局</a> <a href="/l/3">气象台</a></div>
</body></html>`;

describe("Chinese articles of short paragraphs", () => {
  it("the paragraphs are 60–139 characters: too short for the Latin gate", () => {
    for (const p of PARAGRAPHS) {
      expect(p.length).toBeGreaterThanOrEqual(60);
      expect(p.length).toBeLessThan(140);
    }
  });

  it("read as an article: every paragraph, and none of the menu, sidebar or links", () => {
    const r = extractHtml(PAGE, "https://news.example.cn/a/1.html");
    expect(r.method).toBe("readability");
    for (const p of PARAGRAPHS) expect(r.content).toContain(p);
    for (const noise of [...MENU.slice(1), ...HEADLINES, "友情链接", "港务局"]) {
      expect(r.content).not.toContain(noise);
    }
  });

  it("a Latin page of paragraphs that short still reads whole (the gate is by script, not lowered for all)", () => {
    const latin = PAGE.replace(
      /<p>[^<]*<\/p>/g,
      "<p>The tide went out that morning and the fishermen heard the bell from under the sea.</p>",
    );
    expect(extractHtml(latin, "https://news.example.com/a/1.html").method).toBe("fallback");
  });
});
