package io.wheeltimer.testsupport;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts, on the client side, the SQL statements run through the
 * connections it hands out, whatever thread runs them (a poller, an executor, the driver's own):
 * every {@code execute}, {@code executeQuery}, {@code executeUpdate} and {@code executeLargeUpdate}
 * of a {@link Statement}, {@link PreparedStatement} or {@link CallableStatement} is one statement,
 * and a batch counts each of its statements. Commits and rollbacks are counted apart.
 *
 * <p>{@linkplain #recording Recording}, it also keeps each run until {@link #clear()}: one
 * {@link Executed} per {@code execute...} call (a batch is one), with its thread, its SQL, the
 * values bound to it and the rows it wrote, and each commit, rollback and switch of auto-commit
 * ({@link #transactionCalls()}). {@linkplain #counting Counting} only, it keeps nothing, so that a measurement of
 * millions of statements costs no memory.
 */
public final class CountingDataSource implements DataSource {

    private final DataSource target;
    /** Null when counting only. */
    private final Queue<Executed> executed;
    /** Null when counting only. */
    private final Queue<Executed> transactionCalls;

    private final LongAdder statements = new LongAdder();
    private final LongAdder commits = new LongAdder();
    private final LongAdder rollbacks = new LongAdder();

    private CountingDataSource(DataSource target, boolean recording) {
        if (target == null) {
            throw new NullPointerException("target must not be null");
        }
        this.target = target;
        this.executed = recording ? new ConcurrentLinkedQueue<>() : null;
        this.transactionCalls = recording ? new ConcurrentLinkedQueue<>() : null;
    }

    /** Counts what runs through {@code target}, and keeps nothing else. */
    public static CountingDataSource counting(DataSource target) {
        return new CountingDataSource(target, false);
    }

    /** Counts what runs through {@code target}, and keeps each run for {@link #executed()}. */
    public static CountingDataSource recording(DataSource target) {
        return new CountingDataSource(target, true);
    }

    /** Statements run so far; each statement of a batch counts. */
    public long statements() {
        return statements.sum();
    }

    /** Explicit commits so far (statements run with auto-commit on commit on their own and are not counted here). */
    public long commits() {
        return commits.sum();
    }

    /** Rollbacks of a whole transaction so far (not those to a savepoint). */
    public long rollbacks() {
        return rollbacks.sum();
    }

    /** The runs since the last {@link #clear()}, in the order they started. */
    public List<Executed> executed() {
        return List.copyOf(record());
    }

    /**
     * The commits, rollbacks and switches of auto-commit since the last {@link #clear()}, in order:
     * each an {@link Executed} whose SQL is {@code COMMIT}, {@code ROLLBACK} or {@code AUTOCOMMIT
     * true|false}, with the thread that called it.
     */
    public List<Executed> transactionCalls() {
        record();
        return List.copyOf(transactionCalls);
    }

    /** Forgets the runs recorded so far; the counts go on. */
    public void clear() {
        record().clear();
        transactionCalls.clear();
    }

    private Queue<Executed> record() {
        if (executed == null) {
            throw new IllegalStateException(
                    "This CountingDataSource counts only; make it with CountingDataSource.recording to keep the runs");
        }
        return executed;
    }

    /** One {@code execute...} call: the thread that ran it, its SQL, the values bound to it, and the rows it wrote. */
    public static final class Executed {
        private final String thread;
        private final String sql;
        private final List<Binding> bindings;
        private final AtomicInteger rowsWritten = new AtomicInteger();

        private Executed(String thread, String sql, List<Binding> bindings) {
            this.thread = thread;
            this.sql = sql;
            this.bindings = bindings;
        }

        /**
         * Binds the values bound to this run, the same way ({@code setLong}, {@code setObject}, ...), to
         * {@code target}: a statement with the same parameters, such as an {@code EXPLAIN} of this SQL.
         */
        public void bindTo(PreparedStatement target) throws SQLException {
            for (Binding binding : bindings) {
                try {
                    call(target, binding.setter(), binding.arguments());
                } catch (SQLException | RuntimeException e) {
                    throw e;
                } catch (Throwable e) {
                    throw new SQLException(e);
                }
            }
        }

        /** The same run with other SQL that takes the same parameters (a part of it, say). */
        public Executed withSql(String otherSql) {
            return new Executed(thread, otherSql, bindings);
        }

        /** The name of the thread that ran it. */
        public String thread() {
            return thread;
        }

        /** Its SQL; {@code "?"} for a batch of a plain {@link Statement}, whose SQL is not kept. */
        public String sql() {
            return sql;
        }

        /**
         * The rows it wrote: its update counts (a batch entry without one counts as one row), or the
         * rows read so far of what an {@code INSERT}, {@code UPDATE} or {@code DELETE} returned
         * ({@code RETURNING}).
         */
        public int rowsWritten() {
            return rowsWritten.get();
        }

        @Override
        public String toString() {
            return thread + ": " + sql + " (" + rowsWritten + " rows written)";
        }
    }

    /** One call of a {@code PreparedStatement} setter, such as {@code setLong(3, 42L)}. */
    private record Binding(Method setter, Object[] arguments) {}

    @Override
    public Connection getConnection() throws SQLException {
        return counting(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return counting(target.getConnection(username, password));
    }

    private Connection counting(Connection connection) {
        return proxy(Connection.class, new ConnectionHandler(connection));
    }

    /** Counts commits and rollbacks, and wraps the statements it creates. */
    private final class ConnectionHandler implements InvocationHandler {
        private final Connection connection;

        ConnectionHandler(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            switch (name) {
                case "toString":
                    return "Counting[" + connection + "]";
                case "commit":
                    commits.increment();
                    recordTransactionCall("COMMIT");
                    break;
                case "rollback":
                    if (method.getParameterCount() == 0) {
                        rollbacks.increment();
                        recordTransactionCall("ROLLBACK");
                    }
                    break;
                case "setAutoCommit":
                    recordTransactionCall("AUTOCOMMIT " + args[0]);
                    break;
                default:
                    break;
            }
            Object result = call(connection, method, args);
            if (result instanceof Statement statement && (name.startsWith("create") || name.startsWith("prepare"))) {
                Class<? extends Statement> type = result instanceof CallableStatement
                        ? CallableStatement.class
                        : result instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                String sql = name.startsWith("prepare") ? (String) args[0] : null;
                return proxy(type, new StatementHandler(statement, (Connection) proxy, sql));
            }
            return result;
        }
    }

    private void recordTransactionCall(String call) {
        if (transactionCalls != null) {
            transactionCalls.add(new Executed(Thread.currentThread().getName(), call, List.of()));
        }
    }

    /** Counts (and records) the statements a {@link Statement} runs. */
    private final class StatementHandler implements InvocationHandler {
        private final Statement statement;
        private final Connection connection;
        /** The SQL it was prepared with; null for a plain statement, which is given its SQL with each call. */
        private final String preparedSql;
        /** The setter calls since the last run or {@code clearParameters}, when recording. */
        private final List<Binding> bindings = new ArrayList<>();

        StatementHandler(Statement statement, Connection connection, String preparedSql) {
            this.statement = statement;
            this.connection = connection;
            this.preparedSql = preparedSql;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.equals("getConnection")) {
                return connection;
            }
            if (!name.startsWith("execute")) {
                if (executed != null
                        && name.startsWith("set")
                        && args != null
                        && args.length >= 2
                        && args[0] instanceof Integer) {
                    bindings.add(new Binding(method, args.clone()));
                } else if (name.equals("clearParameters")) {
                    bindings.clear();
                }
                return call(statement, method, args);
            }
            Executed run = null;
            if (executed != null) {
                String sql = preparedSql != null
                        ? preparedSql
                        : args != null && args.length > 0 && args[0] instanceof String given ? given : "?";
                run = new Executed(Thread.currentThread().getName(), sql, List.copyOf(bindings));
                executed.add(run);
            }
            Object result = call(statement, method, args);
            if (name.equals("executeBatch") || name.equals("executeLargeBatch")) {
                statements.add(result instanceof int[] counts ? counts.length : ((long[]) result).length);
            } else {
                statements.increment();
            }
            return run == null ? result : written(run, result);
        }
    }

    /** Adds what {@code result} of {@code run} wrote to it; a returned row is counted as it is read. */
    private static Object written(Executed run, Object result) {
        if (result instanceof Integer count) {
            run.rowsWritten.addAndGet(Math.max(0, count));
        } else if (result instanceof Long count) {
            run.rowsWritten.addAndGet((int) Math.max(0, count));
        } else if (result instanceof int[] counts) {
            for (int count : counts) {
                run.rowsWritten.addAndGet(count >= 0 ? count : 1); // SUCCESS_NO_INFO: one row
            }
        } else if (result instanceof long[] counts) {
            for (long count : counts) {
                run.rowsWritten.addAndGet(count >= 0 ? (int) count : 1);
            }
        } else if (result instanceof ResultSet rows && changesData(run.sql)) {
            return proxy(ResultSet.class, (p, method, args) -> {
                Object next = call(rows, method, args);
                if (method.getName().equals("next") && Boolean.TRUE.equals(next)) {
                    run.rowsWritten.incrementAndGet();
                }
                return next;
            });
        }
        return result;
    }

    private static boolean changesData(String sql) {
        String upper = sql.toUpperCase(Locale.ROOT);
        return upper.contains("UPDATE ") && !upper.contains("FOR UPDATE")
                || upper.startsWith("DELETE")
                || upper.startsWith("INSERT");
    }

    /** A proxy of {@code type} that {@code handler} serves, equal only to itself. */
    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        InvocationHandler identity = (proxy, method, args) -> switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> handler.invoke(proxy, method, args);
        };
        return type.cast(
                Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, identity));
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || target.isWrapperFor(type);
    }
}
