// @olaservo/ext-skills serving a folder over stdio: node olaservo-server.mjs DIR
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { discoverSkills, registerSkillResources } from "@olaservo/ext-skills/server";

const root = process.argv[2];
const server = new McpServer(
  { name: "olaservo-ext-skills", version: "0.14.0" },
  { capabilities: { resources: {} } },
);
registerSkillResources(server, discoverSkills(root), root, { template: true, directoryRead: true });
await server.connect(new StdioServerTransport());
