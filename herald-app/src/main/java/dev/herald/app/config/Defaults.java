package dev.herald.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Fills every key the user left out (or left empty) with the section's default, walking the record types,
 * so binding sees a complete tree and records can hold plain {@code int}s and {@code boolean}s. Items of a
 * list of sections, and entries of a map of named sections, get their section's defaults too. Keys the user wrote that no record has are left in
 * place for the binder to reject.
 */
final class Defaults {
    private Defaults() {
    }

    static void fill(ObjectMapper mapper, ObjectNode user, Class<?> section, Sections sections) {
        ObjectNode defaults = Sections.tree(mapper, sections.defaultsOf(section));
        for (Sections.Key key : sections.keys(section)) {
            JsonNode given = user.get(key.name());
            if ((given == null || given.isNull()) && key.isSection()) {
                // a section left out is filled from its own defaults (a plug-in's section from the plug-in's)
                fill(mapper, user.putObject(key.name()), key.type(), sections);
            } else if (given == null || given.isNull()) {
                JsonNode fallback = defaults.get(key.name());
                user.set(key.name(), fallback == null ? NullNode.instance : fallback.deepCopy());
            } else if (key.isSection() && given instanceof ObjectNode nested) {
                fill(mapper, nested, key.type(), sections);
            } else if (key.isSectionMap() && given instanceof ObjectNode entries) {
                for (JsonNode entry : entries) {
                    if (entry instanceof ObjectNode nested) {
                        fill(mapper, nested, key.mapValue(), sections);
                    }
                }
            } else if (key.isSectionList() && given instanceof ArrayNode items) {
                for (JsonNode item : items) {
                    if (item instanceof ObjectNode nested) {
                        fill(mapper, nested, key.element(), sections);
                    }
                }
            }
        }
    }
}
