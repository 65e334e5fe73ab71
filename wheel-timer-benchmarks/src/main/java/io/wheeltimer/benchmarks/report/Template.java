package io.wheeltimer.benchmarks.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prose of {@code docs/benchmarks.md}: {@code benchmarks.md.template} on the class path, with
 * placeholders {@code {{name}}} that the report fills with its tables and figures. Every placeholder must
 * be filled and every value must have its placeholder; either mistake is an error naming it.
 */
final class Template {

    static final String RESOURCE = "/benchmarks.md.template";

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z0-9-]+)}}");

    private final String name;
    private final String text;
    private final Map<String, String> values = new LinkedHashMap<>();

    private Template(String name, String text) {
        this.name = name;
        this.text = text;
    }

    /** The whole template, from the class path. */
    static Template load() {
        return load(RESOURCE);
    }

    /** Another template, {@code resource} on the class path (absolute, from {@code /}). */
    static Template load(String resource) {
        try (InputStream in = Template.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the class path");
            }
            return new Template(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The part of this template from {@code startMarker} to {@code endMarker} and its line end, both kept. */
    Template section(String startMarker, String endMarker) {
        int start = text.indexOf(startMarker);
        int end = text.indexOf(endMarker);
        if (start < 0 || end < start) {
            throw new IllegalStateException(
                    name + " has no section between " + startMarker + " and " + endMarker + " in that order");
        }
        return new Template(name + " (" + startMarker + ")", text.substring(start, end + endMarker.length()) + "\n");
    }

    /** Fills {@code {{placeholder}}} with {@code value}; a value given twice is an error. */
    Template put(String placeholder, Object value) {
        if (values.put(placeholder, String.valueOf(value)) != null) {
            throw new IllegalStateException("placeholder " + placeholder + " of " + name + " filled twice");
        }
        return this;
    }

    /** The text with every placeholder filled. */
    String fill() {
        Set<String> unused = new TreeSet<>(values.keySet());
        Set<String> unfilled = new TreeSet<>();
        Matcher placeholders = PLACEHOLDER.matcher(text);
        while (placeholders.find()) {
            String placeholder = placeholders.group(1);
            unused.remove(placeholder);
            if (!values.containsKey(placeholder)) {
                unfilled.add(placeholder);
            }
        }
        if (!unfilled.isEmpty()) {
            throw new IllegalStateException(name + " has placeholders no data fills: " + unfilled);
        }
        if (!unused.isEmpty()) {
            throw new IllegalStateException("data with no placeholder in " + name + ": " + unused);
        }
        String filled = text;
        for (Map.Entry<String, String> value : values.entrySet()) {
            filled = filled.replace("{{" + value.getKey() + "}}", value.getValue());
        }
        return filled;
    }
}
