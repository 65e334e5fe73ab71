package io.wheeltimer.jdbc;

import java.lang.reflect.Type;

/**
 * Writes the data scheduled with a timeout as text, and reads it back for its handler: with Spring
 * Boot, the application's JSON mapper. A {@code String} is stored as given and never reaches the
 * codec; without a codec, only {@code String} data is accepted.
 */
public interface DurableDataCodec {

    /** The text to store for {@code data} (never null here, never a {@code String}). */
    String write(Object data);

    /** The object of {@code type} that {@code text} (as {@link #write} wrote it) stands for. */
    Object read(String text, Type type);
}
