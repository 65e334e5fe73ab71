package io.wheeltimer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.stream.Collectors;

/**
 * Captures what {@link HashedWheelTimer} logs through {@code System.Logger} (JUL backend in
 * tests). {@code System.Logger.Level.WARNING} arrives as JUL {@code WARNING}, {@code ERROR} as
 * {@code SEVERE}. Use in try-with-resources.
 */
final class LogCapture extends Handler implements AutoCloseable {

    static final String TIMER_LOGGER = "io.wheeltimer.HashedWheelTimer";

    private static final SimpleFormatter FORMATTER = new SimpleFormatter();

    /** Held strongly: JUL keeps loggers only weakly, and with them their handlers. */
    private final Logger logger;

    private final Level previousLevel;
    private final boolean previousUseParentHandlers;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private LogCapture(String name) {
        this.logger = Logger.getLogger(name);
        this.previousLevel = logger.getLevel();
        this.previousUseParentHandlers = logger.getUseParentHandlers();
        setLevel(Level.ALL);
        logger.setLevel(Level.ALL);
        logger.setUseParentHandlers(false); // keep the build output readable
        logger.addHandler(this);
    }

    static LogCapture timerLog() {
        // Make sure the timer's logger exists, so that the capture sees its records.
        System.getLogger(TIMER_LOGGER);
        return new LogCapture(TIMER_LOGGER);
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

    List<LogRecord> records(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).collect(Collectors.toList());
    }

    /** The formatted messages at {@code level}. */
    List<String> messages(Level level) {
        return records(level).stream().map(FORMATTER::formatMessage).collect(Collectors.toList());
    }

    /** How many records at {@code level} contain {@code fragment} in their formatted message. */
    long count(Level level, String fragment) {
        return messages(level).stream().filter(m -> m.contains(fragment)).count();
    }

    List<LogRecord> all() {
        return List.copyOf(records);
    }
}
