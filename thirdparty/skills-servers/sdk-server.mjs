// @modelcontextprotocol/server's ext/skills serving a folder over stdio: node sdk-server.mjs DIR
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";

const skills = await loadSkills(process.argv[2]);
const server = new McpServer({ name: "sdk-ext-skills", version: "2.4.0" });
skills.attach(server);
await server.connect(new StdioServerTransport());
