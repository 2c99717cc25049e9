package dev.herald.platforms.homeassistant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.PlatformTool;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The two tools Home Assistant gives the agent. {@code ha_states} lists entities and their states (filtered by domain or
 * entity ids) with {@code get_states}; {@code ha_call_service} calls one service on given entities with
 * {@code call_service}. Every argument is the model's and so hostile: domains, services and entity ids must follow Home
 * Assistant's own rules and the data must be a small object without a target of its own ({@link HomeAssistantIds}),
 * before anything is sent. A service call runs at once only when its domain is in {@code allow_domains} and every
 * entity belongs to that domain; any other call asks for an approval, which shows the whole call.
 */
final class HomeAssistantTools {
    static final String STATES = "ha_states";
    static final String CALL_SERVICE = "ha_call_service";
    /** The longest state text or attribute value an answer shows. */
    private static final int MAX_VALUE = 200;
    /** Attributes worth showing the model; the others (pictures, supported features) only cost tokens. */
    private static final Set<String> ATTRIBUTES = Set.of("friendly_name", "unit_of_measurement", "device_class", "brightness",
            "color_temp_kelvin", "current_temperature", "temperature", "hvac_action", "percentage", "volume_level", "media_title");

    private final HomeAssistantSocket socket;
    private final Set<String> allowDomains;
    private final int maxStates;

    HomeAssistantTools(HomeAssistantSocket socket, List<String> allowDomains, int maxStates) {
        this.socket = socket;
        this.allowDomains = Set.copyOf(allowDomains);
        this.maxStates = maxStates;
    }

    List<PlatformTool> tools() {
        return List.of(new States(), new CallService());
    }

    private static JsonNode args(String json) {
        try {
            JsonNode node = HomeAssistantSocket.JSON.readTree(json);
            return node != null && node.isObject() ? node : HomeAssistantSocket.JSON.createObjectNode();
        } catch (JsonProcessingException e) {
            return HomeAssistantSocket.JSON.createObjectNode();
        }
    }

    /** The entity ids of {@code entity}: one string or a list of strings. */
    private static List<String> entityIds(JsonNode entity) {
        List<String> ids = new ArrayList<>();
        if (entity.isTextual()) {
            ids.add(entity.asText());
        } else if (entity.isArray()) {
            entity.forEach(e -> ids.add(e.isTextual() ? e.asText() : e.toString()));
        }
        return ids;
    }

    private final class States implements PlatformTool {
        @Override
        public String name() {
            return STATES;
        }

        @Override
        public String description() {
            return "Reads the current state of Home Assistant entities (lights, sensors, locks, ...): one line per entity with its state and"
                    + " main attributes. Filter by domain (light, sensor, ...) or by entity ids; at most " + maxStates + " entities.";
        }

        @Override
        public String parametersJson() {
            return """
                    {"type":"object","properties":{
                      "domain":{"type":"string","description":"only entities of this domain, e.g. light or sensor"},
                      "entity":{"type":"array","items":{"type":"string"},"description":"only these entity ids, e.g. [\\"light.kitchen\\"]"}
                    },"additionalProperties":false}""";
        }

        @Override
        public Optional<String> approvalReason(String argumentsJson) {
            return Optional.empty();
        }

        @Override
        public String summarize(String argumentsJson) {
            JsonNode a = args(argumentsJson);
            String domain = a.path("domain").asText("");
            List<String> ids = entityIds(a.path("entity"));
            return "Home Assistant states" + (domain.isEmpty() ? "" : " of " + HomeAssistantIds.clip(domain))
                    + (ids.isEmpty() ? "" : " for " + HomeAssistantIds.clip(String.join(", ", ids)));
        }

        @Override
        public Result call(String argumentsJson) {
            JsonNode a = args(argumentsJson);
            String domain = a.path("domain").asText("");
            if (!domain.isEmpty() && !HomeAssistantIds.validDomain(domain)) {
                return Result.error("domain \"" + HomeAssistantIds.clip(domain) + "\" is not a Home Assistant domain (lower-case letters, digits, _)");
            }
            List<String> ids = entityIds(a.path("entity"));
            for (String id : ids) {
                if (!HomeAssistantIds.validEntity(id)) {
                    return Result.error("\"" + HomeAssistantIds.clip(id) + "\" is not an entity id such as light.kitchen");
                }
            }
            JsonNode states;
            try {
                states = socket.command(HomeAssistantSocket.JSON.createObjectNode().put("type", "get_states"));
            } catch (HomeAssistantSocket.CommandException e) {
                return Result.error("Home Assistant: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Result.error("interrupted");
            }
            StringBuilder out = new StringBuilder();
            int shown = 0;
            int matching = 0;
            for (JsonNode s : states) {
                String id = s.path("entity_id").asText();
                if ((!domain.isEmpty() && !id.startsWith(domain + ".")) || (!ids.isEmpty() && !ids.contains(id))) {
                    continue;
                }
                matching++;
                if (shown < maxStates) {
                    out.append(line(s)).append('\n');
                    shown++;
                }
            }
            if (matching == 0) {
                return Result.ok("No entity matches" + (domain.isEmpty() ? "" : " domain " + domain) + (ids.isEmpty() ? "" : " " + ids) + ".");
            }
            if (matching > shown) {
                out.append("(").append(matching - shown).append(" more not shown; filter by domain or entity)\n");
            }
            return Result.ok(out.toString().strip());
        }

        private static String line(JsonNode s) {
            StringBuilder l = new StringBuilder(HomeAssistantIds.clip(s.path("entity_id").asText())).append(": ")
                    .append(value(s.path("state").asText()));
            List<String> attrs = new ArrayList<>();
            s.path("attributes").fields().forEachRemaining(e -> {
                if (ATTRIBUTES.contains(e.getKey()) && !e.getValue().isContainerNode()) {
                    attrs.add(e.getKey() + "=" + value(e.getValue().asText()));
                }
            });
            if (!attrs.isEmpty()) {
                l.append(" (").append(String.join(", ", attrs.stream().sorted().toList())).append(")");
            }
            return l.toString();
        }

        private static String value(String text) {
            String s = text.replaceAll("[\\p{Cntrl}]", " ");
            return s.length() > MAX_VALUE ? s.substring(0, MAX_VALUE) + "…" : s;
        }
    }

    /** A service call's arguments, checked; {@link #problem} says what is wrong, if anything. */
    private record Call(String domain, String service, List<String> entities, JsonNode data, String problem) {
        static Call of(String json) {
            JsonNode a = args(json);
            String domain = a.path("domain").asText("");
            String service = a.path("service").asText("");
            List<String> ids = entityIds(a.path("entity"));
            JsonNode data = a.path("data");
            String problem = null;
            if (!HomeAssistantIds.validDomain(domain)) {
                problem = "domain \"" + HomeAssistantIds.clip(domain) + "\" is not a Home Assistant domain (lower-case letters, digits, _)";
            } else if (!HomeAssistantIds.validDomain(service)) {
                problem = "service \"" + HomeAssistantIds.clip(service) + "\" is not a service name (lower-case letters, digits, _)";
            } else if (ids.size() > HomeAssistantIds.MAX_ENTITIES) {
                problem = "entity names " + ids.size() + " entities; at most " + HomeAssistantIds.MAX_ENTITIES;
            } else {
                for (String id : ids) {
                    if (!HomeAssistantIds.validEntity(id)) {
                        problem = "\"" + HomeAssistantIds.clip(id) + "\" is not an entity id such as light.kitchen";
                        break;
                    }
                }
                if (problem == null) {
                    problem = HomeAssistantIds.dataProblem(data).orElse(null);
                }
            }
            return new Call(domain, service, ids, data.isObject() ? data : null, problem);
        }

        String text() {
            return domain + "." + service + (entities.isEmpty() ? "" : " on " + String.join(", ", entities)) + (data == null || data.isEmpty()
                    ? "" : " with " + data);
        }
    }

    private final class CallService implements PlatformTool {
        @Override
        public String name() {
            return CALL_SERVICE;
        }

        @Override
        public String description() {
            return "Calls a Home Assistant service (domain + service, e.g. light + turn_on) on the given entity ids, with optional service"
                    + " data (e.g. {\"brightness_pct\": 40}). Calls in the domains " + String.join(", ", allowDomains.stream().sorted().toList())
                    + " run at once; any other call waits for a person's approval. Read entity ids with " + STATES + " first.";
        }

        @Override
        public String parametersJson() {
            return """
                    {"type":"object","properties":{
                      "domain":{"type":"string","description":"the service's domain, e.g. light"},
                      "service":{"type":"string","description":"the service, e.g. turn_on"},
                      "entity":{"type":"array","items":{"type":"string"},"description":"the entity ids to act on, e.g. [\\"light.kitchen\\"]"},
                      "data":{"type":"object","description":"service data, e.g. {\\"brightness_pct\\": 40}; never entity_id (use entity)"}
                    },"required":["domain","service"],"additionalProperties":false}""";
        }

        @Override
        public Optional<String> approvalReason(String argumentsJson) {
            Call call = Call.of(argumentsJson);
            if (call.problem() != null) {
                return Optional.empty(); // refused when it runs, before anything is sent
            }
            if (!allowDomains.contains(call.domain())) {
                return Optional.of("controls your home: " + call.domain() + " is not in platforms.homeassistant.allow_domains");
            }
            List<String> elsewhere = call.entities().stream().filter(e -> !HomeAssistantIds.domainOf(e).equals(call.domain())).toList();
            if (!elsewhere.isEmpty()) {
                return Optional.of("controls your home: " + String.join(", ", elsewhere) + " is not a " + call.domain() + " entity");
            }
            return Optional.empty();
        }

        @Override
        public String summarize(String argumentsJson) {
            Call call = Call.of(argumentsJson);
            return call.problem() != null ? "Home Assistant service call (refused: " + call.problem() + ")" : "Home Assistant " + call.text();
        }

        @Override
        public Result call(String argumentsJson) {
            Call call = Call.of(argumentsJson);
            if (call.problem() != null) {
                return Result.error("refused, nothing was sent: " + call.problem());
            }
            ObjectNode command = HomeAssistantSocket.JSON.createObjectNode().put("type", "call_service").put("domain", call.domain())
                    .put("service", call.service());
            if (call.data() != null) {
                command.set("service_data", call.data());
            }
            if (!call.entities().isEmpty()) {
                ArrayNode ids = command.putObject("target").putArray("entity_id");
                call.entities().forEach(ids::add);
            }
            try {
                socket.command(command);
                return Result.ok("Done: " + call.text() + ".");
            } catch (HomeAssistantSocket.CommandException e) {
                return Result.error("Home Assistant refused " + call.domain() + "." + call.service() + " (" + e.code + "): " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Result.error("interrupted before Home Assistant answered; the call may have run");
            }
        }
    }
}
