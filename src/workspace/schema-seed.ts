import type { ProjectMeta } from "./project-meta.js";

/** Path of the schema file inside a project. */
export const SCHEMA_FILE = "world-engine/schema.yaml";

/** The schema a new project starts with: world, character, location, faction, item. */
export function defaultSchemaYaml(meta: ProjectMeta): string {
  const zh = meta.language === "zh";
  const d = (en: string, cn: string) => JSON.stringify(zh ? cn : en);
  return `# World Engine schema: the subject types and their attributes.
# Attribute types: string, int, float, boolean, enum (values), ref (to: <type>), list/set (of: <type>),
# object (fields), record (of: <type>), text (a searchable text entry). Undeclared attributes are
# allowed as free scalars. Every list/set without a default starts as [].
types:
  world:
    description: ${d("The world as a whole", "整个世界")}
    attrs:
      era: { type: string, description: ${d("Name of the current era", "当前纪元名")} }
      year: { type: int, description: ${d("Current year in the story's reckoning", "故事纪年中的当前年份")} }
      events: { type: list, of: text, description: ${d("World-level events, one entry each", "世界级事件，每条一项")} }
  character:
    description: ${d("A person or creature", "人物或生灵")}
    attrs:
      name: string
      race: string
      age: int
      hp: { type: int, default: 100 }
      maxHp: { type: int, default: 100 }
      location: { type: ref, to: location, description: ${d("Where the character is", "所在地点")} }
      faction: { type: ref, to: faction }
      inventory: { type: set, of: string, description: ${d("What the character carries", "随身物品")} }
      skills: { type: list, of: string }
      memory: { type: record, of: text, description: ${d("What the character remembers, by topic", "按主题记下的记忆")} }
      events: { type: list, of: text }
  location:
    description: ${d("A place", "地点")}
    attrs:
      name: string
      locationType: string
      control: { type: ref, to: faction, description: ${d("The faction in control", "控制该地的势力")} }
      events: { type: list, of: text }
  faction:
    description: ${d("A group, order or state", "组织、门派或国家")}
    attrs:
      name: string
      factionType: string
      leader: { type: ref, to: character }
      capital: { type: ref, to: location }
      treasury: { type: int, default: 0 }
      events: { type: list, of: text }
  item:
    description: ${d("A notable object", "重要物品")}
    attrs:
      name: string
      itemType: string
      owner: { type: ref, to: character }
      durability: { type: int, default: 100 }
      events: { type: list, of: text }
`;
}
