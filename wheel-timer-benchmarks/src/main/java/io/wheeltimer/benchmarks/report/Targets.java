package io.wheeltimer.benchmarks.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The targets of the benchmark report, read from {@code targets.tsv} on the class path: for each, its id,
 * comparison, threshold and text. The report computes the measured value; whether it meets its target is
 * this file's answer, so that no threshold is written in the code.
 */
final class Targets {

    static final String RESOURCE = "/targets.tsv";

    private static final Pattern NAME = Pattern.compile("\\{([a-z-]+)}");

    private final Map<String, Target> targets;

    private Targets(Map<String, Target> targets) {
        this.targets = targets;
    }

    /** The targets in {@code targets.tsv} on the class path. */
    static Targets load() {
        try (InputStream in = Targets.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the class path");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Targets parse(String tsv) {
        Map<String, Target> targets = new LinkedHashMap<>();
        String[] lines = tsv.split("\n");
        boolean header = true;
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (header) {
                header = false; // id, comparison, threshold, text
                continue;
            }
            String[] cells = line.split("\t", -1);
            if (cells.length != 4) {
                throw new IllegalArgumentException(RESOURCE + " line " + (n + 1) + ": " + cells.length
                        + " tab-separated cells, where 4 are allowed (id, comparison, threshold, text): " + line);
            }
            Target target = new Target(cells[0], Comparison.of(cells[1], n + 1), cells[2], cells[3]);
            if (targets.put(target.id(), target) != null) {
                throw new IllegalArgumentException(RESOURCE + " line " + (n + 1) + ": target " + target.id()
                        + " is there twice, where each id is allowed once");
            }
        }
        return new Targets(targets);
    }

    /** The target {@code id}; an error naming it if the file has none. */
    Target get(String id) {
        Target target = targets.get(id);
        if (target == null) {
            throw new IllegalArgumentException(
                    "no target " + id + " in " + RESOURCE + "; the targets there are " + targets.keySet());
        }
        return target;
    }

    enum Comparison {
        AT_LEAST(">=", "≥"),
        ABOVE(">", ">"),
        AT_MOST("<=", "≤"),
        BELOW("<", "<"),
        EQUAL("==", "=");

        private final String code;
        private final String symbol;

        Comparison(String code, String symbol) {
            this.code = code;
            this.symbol = symbol;
        }

        static Comparison of(String code, int line) {
            for (Comparison c : values()) {
                if (c.code.equals(code)) {
                    return c;
                }
            }
            throw new IllegalArgumentException(
                    RESOURCE + " line " + line + ": comparison " + code + ", where >=, >, <=, < or == is allowed");
        }

        boolean holds(double measured, double threshold) {
            return switch (this) {
                case AT_LEAST -> measured >= threshold;
                case ABOVE -> measured > threshold;
                case AT_MOST -> measured <= threshold;
                case BELOW -> measured < threshold;
                case EQUAL -> measured == threshold;
            };
        }
    }

    /** One target: {@code measured comparison threshold}. */
    record Target(String id, Comparison comparison, String thresholdText, String pattern) {

        /** The threshold as a number (a fraction such as {@code 1/10} divided out). */
        double threshold() {
            int slash = thresholdText.indexOf('/');
            try {
                return slash < 0
                        ? Double.parseDouble(thresholdText)
                        : Double.parseDouble(thresholdText.substring(0, slash))
                                / Double.parseDouble(thresholdText.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(RESOURCE + ": target " + id + " has threshold " + thresholdText
                        + ", where a number or a fraction such as 1/10 is allowed");
            }
        }

        /** The threshold as a plain decimal: 0.1 for 1/10. */
        String thresholdDecimal() {
            return BigDecimal.valueOf(threshold()).stripTrailingZeros().toPlainString();
        }

        /** Whether {@code measured} meets the target; never when it is not a number. */
        boolean met(double measured) {
            return comparison.holds(measured, threshold());
        }

        /** Whether {@code measured} meets the target taken as a multiple of {@code reference}. */
        boolean met(double measured, double reference) {
            return comparison.holds(measured, threshold() * reference);
        }

        /**
         * The target's text, {@code {op}}, {@code {threshold}} and {@code {percent}} filled from the target and
         * every other {@code {name}} from {@code namesAndValues} (name, value, name, value ...).
         */
        String text(String... namesAndValues) {
            Map<String, String> values = new LinkedHashMap<>();
            values.put("op", comparison.symbol);
            values.put("threshold", thresholdText);
            values.put(
                    "percent",
                    BigDecimal.valueOf(threshold() * 100).stripTrailingZeros().toPlainString());
            for (int k = 0; k + 1 < namesAndValues.length; k += 2) {
                values.put(namesAndValues[k], namesAndValues[k + 1]);
            }
            Matcher names = NAME.matcher(pattern);
            StringBuilder filled = new StringBuilder();
            while (names.find()) {
                String value = values.get(names.group(1));
                if (value == null) {
                    throw new IllegalArgumentException("target " + id + " in " + RESOURCE + ": its text has {"
                            + names.group(1) + "}, which the report does not fill (it fills " + values.keySet() + ")");
                }
                names.appendReplacement(filled, Matcher.quoteReplacement(value));
            }
            return names.appendTail(filled).toString();
        }
    }
}
