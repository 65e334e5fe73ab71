package io.wheeltimer.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Captures what a class logs through {@code System.Logger}, which the test class path backs with
 * java.util.logging: {@code System.Logger.Level.WARNING} arrives as JUL {@code WARNING},
 * {@code ERROR} as {@code SEVERE}. Every level is captured while it is open, and nothing of that
 * logger reaches the console, to keep the build output readable; {@link #close()} puts the logger
 * back as it was. Use in try-with-resources.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    private static final SimpleFormatter FORMATTER = new SimpleFormatter();

    /** Held strongly: JUL keeps loggers only weakly, and with them their handlers. */
    private final Logger logger;

    private final Level previousLevel;
    private final boolean previousUseParentHandlers;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private LogCapture(String name) {
        System.getLogger(name); // the logger the class logs to exists before the handler is added
        this.logger = Logger.getLogger(name);
        this.previousLevel = logger.getLevel();
        this.previousUseParentHandlers = logger.getUseParentHandlers();
        setLevel(Level.ALL);
        logger.setLevel(Level.ALL);
        logger.setUseParentHandlers(false);
        logger.addHandler(this);
    }

    /** Captures the logger named after {@code type}, as {@code System.getLogger(type.getName())} names it. */
    public static LogCapture of(Class<?> type) {
        return new LogCapture(type.getName());
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setLevel(previousLevel);
        logger.setUseParentHandlers(previousUseParentHandlers);
    }

    /** Every record so far, in order. */
    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** The records at exactly {@code level}, in order. */
    public List<LogRecord> records(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).toList();
    }

    /** The messages at exactly {@code level}, formatted (their parameters filled in), in order. */
    public List<String> messages(Level level) {
        return records(level).stream().map(FORMATTER::formatMessage).toList();
    }

    /** How many records at {@code level} contain {@code fragment} in their formatted message. */
    public long count(Level level, String fragment) {
        return messages(level).stream().filter(m -> m.contains(fragment)).count();
    }
}
