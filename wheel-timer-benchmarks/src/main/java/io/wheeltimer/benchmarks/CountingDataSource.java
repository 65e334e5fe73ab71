package io.wheeltimer.benchmarks;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts, on the client side, the SQL statements run through the connections it
 * hands out: every {@code execute}, {@code executeQuery}, {@code executeUpdate} and {@code executeLargeUpdate}
 * of a {@link Statement}, {@link PreparedStatement} or {@link CallableStatement} is one statement; an
 * {@code executeBatch} counts each statement of the batch. Commits and rollbacks are counted apart. Exact,
 * whatever runs the statements (a scheduler's poll thread, its executor, the driver's own threads).
 */
final class CountingDataSource implements DataSource {

    private final DataSource target;
    private final LongAdder statements = new LongAdder();
    private final LongAdder commits = new LongAdder();
    private final LongAdder rollbacks = new LongAdder();

    CountingDataSource(DataSource target) {
        this.target = target;
    }

    /** Statements run so far. */
    long statements() {
        return statements.sum();
    }

    /** Explicit commits so far (statements run with auto-commit on commit on their own and are not counted here). */
    long commits() {
        return commits.sum();
    }

    long rollbacks() {
        return rollbacks.sum();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return counting(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return counting(target.getConnection(username, password));
    }

    private Connection counting(Connection connection) {
        return (Connection) Proxy.newProxyInstance(
                CountingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                new ConnectionHandler(connection));
    }

    /** Counts commits and rollbacks, and wraps the statements it creates. */
    private final class ConnectionHandler implements InvocationHandler {
        private final Connection connection;

        ConnectionHandler(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "Counting[" + connection + "]";
                case "commit":
                    commits.increment();
                    break;
                case "rollback":
                    if (method.getParameterCount() == 0) {
                        rollbacks.increment();
                    }
                    break;
                default:
                    break;
            }
            Object result = call(connection, method, args);
            if (result instanceof Statement statement && method.getName().matches("create.*|prepare.*")) {
                Class<?> type = result instanceof CallableStatement
                        ? CallableStatement.class
                        : result instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                return Proxy.newProxyInstance(
                        CountingDataSource.class.getClassLoader(),
                        new Class<?>[] {type},
                        new StatementHandler(statement, (Connection) proxy));
            }
            return result;
        }
    }

    /** Counts the statements a {@link Statement} runs. */
    private final class StatementHandler implements InvocationHandler {
        private final Statement statement;
        private final Connection connection;

        StatementHandler(Statement statement, Connection connection) {
            this.statement = statement;
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            switch (name) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "getConnection":
                    return connection;
                default:
                    break;
            }
            Object result = call(statement, method, args);
            if (name.equals("executeBatch") || name.equals("executeLargeBatch")) {
                statements.add(result instanceof int[] counts ? counts.length : ((long[]) result).length);
            } else if (name.startsWith("execute")) {
                statements.increment();
            }
            return result;
        }
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
