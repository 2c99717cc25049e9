package dev.herald.app.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.HomeChannelStore;
import dev.herald.core.platform.Platform;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Home channels set with {@code /sethome}, kept in {@code $HERALD_HOME/home_channels.json} (mode 600,
 * written atomically) as {@code {"<platform>": {"chat_id": ..., "thread_id": ..., "name": ...}}}. At start
 * they override the configured {@code home_channel} of the same platform.
 */
public final class FileHomeChannelStore implements HomeChannelStore {
    private static final Logger log = LoggerFactory.getLogger("runtime");
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final Path file;

    public FileHomeChannelStore(Path file) {
        this.file = file;
    }

    @Override
    public synchronized List<HomeChannel> load() {
        List<HomeChannel> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : read().properties()) {
            try {
                JsonNode h = e.getValue();
                out.add(new HomeChannel(Platform.of(e.getKey()), new ChatTarget(h.path("chat_id").asText(),
                        h.hasNonNull("thread_id") ? h.get("thread_id").asText() : null),
                        h.hasNonNull("name") ? h.get("name").asText() : null));
            } catch (IllegalArgumentException bad) {
                log.warn("runtime - {}: ignoring the home channel of '{}' ({})", file, e.getKey(), bad.getMessage());
            }
        }
        return out;
    }

    @Override
    public synchronized void save(HomeChannel home) {
        ObjectNode root = read();
        ObjectNode h = root.putObject(home.platform().id());
        h.put("chat_id", home.target().chatId());
        if (home.target().threadId() != null) {
            h.put("thread_id", home.target().threadId());
        }
        h.put("name", home.name());
        try {
            PrivateFiles.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private ObjectNode read() {
        if (!Files.exists(file)) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode n = JSON.readTree(file.toFile());
            return n instanceof ObjectNode o ? o : JSON.createObjectNode();
        } catch (IOException e) {
            log.warn("runtime - {} is unreadable ({}); home channels from /sethome are not restored", file, e.getMessage());
            return JSON.createObjectNode();
        }
    }
}
