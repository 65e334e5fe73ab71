package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.StorableText;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The rules of names: a task name, key or instance id (text every database stores, as wide as its
 * column) and a table name (a plain SQL identifier that no supported database reserves). Errors name
 * what was checked, the value and what is allowed.
 */
final class Names {

    /** Longest task name, key and instance id, in characters: the width of their columns. */
    static final int MAX_NAME_LENGTH = 200;

    /** Longest table name: PostgreSQL's 63-character identifiers, less the suffixes of the derived names. */
    static final int MAX_TABLE_NAME_LENGTH = 50;

    /** A table name is written into SQL, so it must be a plain identifier. */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    static String tableName(String tableName) {
        Objects.requireNonNull(tableName, "tableName must not be null");
        if (!IDENTIFIER.matcher(tableName).matches() || tableName.length() > MAX_TABLE_NAME_LENGTH) {
            throw new InvalidSettingException(
                    "tableName",
                    tableName,
                    "\"" + tableName + "\"",
                    "must be a plain SQL identifier of at most " + MAX_TABLE_NAME_LENGTH + " characters: a letter"
                            + " or _, then letters, digits or _ (the lease table is named after it, with _instances"
                            + " appended)");
        }
        if (ReservedWords.isReserved(tableName)) {
            throw new InvalidSettingException(
                    "tableName",
                    tableName,
                    "\"" + tableName + "\"",
                    "must not be a word that H2, PostgreSQL, MariaDB or MySQL reserves (" + tableName
                            + " is one): the name is written into the timer's SQL unquoted; choose another, for"
                            + " example " + tableName.toLowerCase(Locale.ROOT) + "_timeouts");
        }
        return tableName;
    }

    static String instanceId(String instanceId) {
        Objects.requireNonNull(instanceId, "instanceId must not be null");
        if (!isName(instanceId)) {
            throw new InvalidSettingException("instanceId", instanceId, shown(instanceId), NAME_RULE);
        }
        return instanceId;
    }

    /** What a task name, key or instance id must be. */
    private static final String NAME_RULE = "must be a name of 1 to " + MAX_NAME_LENGTH
            + " characters (Unicode code points), not all blank, without U+0000 or unpaired surrogates";

    /**
     * A task name or key: 1 to 200 characters, counted as code points as the column counts them, not
     * all blank, and text every database stores (no U+0000, no half of a surrogate pair).
     */
    static String name(String what, String value) {
        Objects.requireNonNull(value, () -> what + " must not be null");
        if (!isName(value)) {
            throw new IllegalArgumentException(what + " is " + shown(value) + "; it " + NAME_RULE);
        }
        return value;
    }

    private static boolean isName(String value) {
        return !value.isBlank()
                && value.codePointCount(0, value.length()) <= MAX_NAME_LENGTH
                && StorableText.unstorableAt(value) < 0;
    }

    /** A name as an error shows it: quoted, cut to 40 characters (never inside one), with its length. */
    private static String shown(String value) {
        String printable = value.replace("\u0000", "\\u0000");
        return "\"" + StorableText.truncate(printable, 40) + "\" (" + value.codePointCount(0, value.length())
                + " characters)";
    }

    /** The host name and a random suffix: unique per life of a process, as two live instances must be. */
    static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception | LinkageError e) {
            host = "instance";
        }
        if (host.isBlank()) {
            host = "instance";
        }
        return StorableText.truncate(host, MAX_NAME_LENGTH - 9) + "-"
                + String.format("%08x", ThreadLocalRandom.current().nextInt());
    }

    /** A task name and key, each checked as {@link #name} checks it, neither null. */
    static void checkTaskAndKey(String task, String key) {
        Objects.requireNonNull(task, "task must not be null");
        Objects.requireNonNull(key, "key must not be null");
        name("task", task);
        name("key", key);
    }

    private Names() {}
}
