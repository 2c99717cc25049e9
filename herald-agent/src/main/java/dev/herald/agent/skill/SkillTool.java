package dev.herald.agent.skill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.TooLongToApprove;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolResult;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * {@code skill}: the model's way to the skills. Its description lists each skill's name and description (within
 * {@link #LISTING_BUDGET} characters), so the model knows they exist without their bodies taking the context; it loads
 * a skill's instructions ({@code use}) when a task calls for one, reads a file beside them ({@code read}, a path inside
 * the skill's folder only) and, where {@code agent.skills_writable} is on, writes a skill ({@code write}, asked for
 * approval: what a skill says is followed by later conversations). Loading and reading are safe and never asked about.
 */
public final class SkillTool implements Tool {
    public static final String NAME = "skill";
    /** The most characters of the skill list in the tool's description. */
    static final int LISTING_BUDGET = 6_000;
    /** The most characters of one skill's description there. */
    static final int DESCRIPTION_IN_LISTING = 300;

    private final Skills skills;

    public SkillTool(Skills skills) {
        this.skills = skills;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        StringBuilder sb = new StringBuilder("Skills are instructions for particular tasks, kept by the operator. When a task matches a "
                + "skill below, first call this tool with action \"use\" and the skill's name, then follow what it says; \"read\" "
                + "gives a file beside it (path relative to the skill's folder), \"list\" lists them all.");
        if (skills.writable()) {
            sb.append(" \"write\" creates or replaces a skill: name, and content = the whole SKILL.md (YAML front matter with name and "
                    + "description between --- lines, then Markdown instructions).");
        }
        List<Skill> all = skills.list();
        if (all.isEmpty()) {
            return sb.append("\nNo skills are installed.").toString();
        }
        sb.append("\nAvailable skills:");
        int shown = 0;
        for (Skill s : all) {
            String line = "\n- " + s.name() + ": " + Texts.line(s.description(), DESCRIPTION_IN_LISTING);
            if (sb.length() + line.length() > LISTING_BUDGET) {
                break;
            }
            sb.append(line);
            shown++;
        }
        if (shown < all.size()) {
            sb.append("\n(and ").append(all.size() - shown).append(" more: call with action \"list\")");
        }
        return sb.toString();
    }

    @Override
    public JsonNode parameters() {
        return Args.schema(new String[] {"action"},
                "action", "string", "use (load a skill's instructions), read (a file of a skill), list, or write (where allowed)",
                "name", "string", "the skill's name",
                "path", "string", "for read: the file's path inside the skill's folder, e.g. reference.md",
                "content", "string", "for write: the whole SKILL.md");
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return action(args).equals("write") && skills.writable()
                ? Danger.because("writes the skill '" + Args.string(args, "name", "?") + "', which later conversations may follow")
                : Danger.NONE;
    }

    @Override
    public String summarize(JsonNode args) {
        return "skill " + action(args) + " " + Texts.line(Args.string(args, "name", ""), 64)
                + (args.has("path") ? " " + Texts.line(Args.string(args, "path", ""), 100) : "");
    }

    @Override
    public String approvalText(JsonNode args, ToolContext context) {
        return TooLongToApprove.check(summarize(args) + "\n\n" + Args.string(args, "content", ""), "skill", APPROVAL_LIMIT);
    }

    private static String action(JsonNode args) {
        return Args.string(args, "action", "use").strip().toLowerCase(Locale.ROOT);
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        String action = action(args);
        try {
            return switch (action) {
                case "list" -> ToolResult.ok(list());
                case "use" -> use(skill(args));
                case "read" -> {
                    Skill s = skill(args);
                    String path = Args.string(args, "path");
                    yield ToolResult.ok(skills.read(s, path));
                }
                case "write" -> write(args);
                default -> ToolResult.error("unknown action '" + Texts.line(action, 40) + "'; use use, read, list"
                        + (skills.writable() ? " or write" : ""));
            };
        } catch (IllegalArgumentException e) {
            return ToolResult.error(e.getMessage());
        } catch (IOException e) {
            return ToolResult.error("the skill could not be read or written (" + e.getMessage() + ")");
        }
    }

    private Skill skill(JsonNode args) {
        String name = Args.string(args, "name").strip();
        return skills.find(name).orElseThrow(() -> new IllegalArgumentException("there is no skill '" + Texts.line(name, 64)
                + "'; the skills are " + String.join(", ", skills.list().stream().map(Skill::name).toList())));
    }

    private String list() {
        List<Skill> all = skills.list();
        if (all.isEmpty()) {
            return "No skills are installed.";
        }
        StringBuilder sb = new StringBuilder();
        all.forEach(s -> sb.append("- ").append(s.name()).append(": ").append(s.description()).append('\n'));
        return sb.toString().stripTrailing();
    }

    private ToolResult use(Skill s) {
        StringBuilder sb = new StringBuilder("Skill ").append(s.name()).append(" (folder ").append(s.dir()).append(")\n\n").append(s.body());
        List<String> files = skills.files(s);
        if (!files.isEmpty()) {
            sb.append("\n\nFiles of this skill (read one with action \"read\" and its path):");
            files.forEach(f -> sb.append("\n- ").append(f));
        }
        return ToolResult.ok(sb.toString());
    }

    private ToolResult write(JsonNode args) throws IOException {
        if (!skills.writable()) {
            return ToolResult.error("skills are read-only here: the operator has not set agent.skills_writable");
        }
        Skill written = skills.write(Args.string(args, "name").strip(), Args.string(args, "content"));
        return ToolResult.ok("wrote the skill " + written.name() + " (" + written.dir().resolve(Skills.FILE) + ")");
    }
}
