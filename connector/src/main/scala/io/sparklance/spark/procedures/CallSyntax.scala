package io.sparklance.spark.procedures

import scala.annotation.tailrec

import io.sparklance.util.Errors

/**
 * A `CALL` statement as written: the procedure's name parts and its arguments, each by name or
 * by position, with the SQL text of its value (an expression, evaluated by the caller).
 * `nameAt` and `at` are the offsets in the statement's text where the name and an argument start (for errors).
 */
final case class CallStatement(name: Seq[String], args: Seq[CallArgument], text: String, nameAt: Int)

final case class CallArgument(name: Option[String], value: String, at: Int)

/**
 * Reads `CALL <name>(<arg>, ...)` as Spark 4's grammar has it (`CALL multipartIdentifier
 * '(' (functionArgument (',' functionArgument)*)? ')'`, a functionArgument being an expression
 * or `identifier => expression`), for Spark 3.5, whose parser has no CALL. Only the statement's
 * shape is read here: names (plain, or in backticks with `` `` `` for a backtick) and where each
 * argument's expression begins and ends, skipping strings, quoted names, comments and nested
 * brackets. The expressions themselves go to Spark's own expression parser, so that literals,
 * escapes, casts and `map(...)` mean what they mean everywhere else in Spark SQL.
 *
 * [[parse]] answers None for any statement whose first word is not CALL (after white space and
 * comments): those belong to Spark's parser, untouched.
 */
object CallSyntax {

  private sealed trait Kind
  private case object Word extends Kind     // a plain identifier or keyword, or a number
  private case object Quoted extends Kind   // `a name`
  private case object Str extends Kind      // 'text' or "text"
  private case object Symbol extends Kind   // ( ) [ ] , . ; => and any other operator character

  private final case class Token(kind: Kind, text: String, start: Int, end: Int) {
    def is(symbol: String): Boolean = kind == Symbol && text == symbol
    def isWord(word: String): Boolean = kind == Word && text.equalsIgnoreCase(word)
  }

  /** The statement, if `sql` is a CALL (else None); a CALL that is not well formed is an error naming where. */
  def parse(sql: String): Option[CallStatement] = {
    val lexer = new Lexer(sql)
    lexer.next() match {
      case Some(t) if t.isWord("CALL") => Some(new Reader(sql, Iterator.continually(lexer.next()).takeWhile(_.isDefined).flatten.toVector).statement())
      case _ => None
    }
  }

  /** The error for `sql` at `offset`: line and position (from 0, as Spark's parse errors count them). */
  def error(sql: String, offset: Int, detail: String): Exception = {
    val before = sql.substring(0, math.min(offset, sql.length))
    val line = before.count(_ == '\n') + 1
    val position = before.length - (before.lastIndexOf('\n') + 1)
    Errors.invalidCall(line, position, detail)
  }

  /** Splits the text into tokens; white space and comments (`-- ...`, nested `/* ... */`) are skipped. */
  private final class Lexer(sql: String) {
    private var i = 0

    private def fail(at: Int, detail: String): Nothing = throw error(sql, at, detail)

    @tailrec private def skipSpaceAndComments(): Unit =
      if (i < sql.length && sql.charAt(i).isWhitespace) { i += 1; skipSpaceAndComments() }
      else if (sql.startsWith("--", i)) {
        while (i < sql.length && sql.charAt(i) != '\n') i += 1
        skipSpaceAndComments()
      } else if (sql.startsWith("/*", i)) {
        val start = i
        var depth = 0
        do {
          if (i >= sql.length) fail(start, "the comment starting here is not closed (*/ is missing)")
          if (sql.startsWith("/*", i)) { depth += 1; i += 2 }
          else if (sql.startsWith("*/", i)) { depth -= 1; i += 2 }
          else i += 1
        } while (depth > 0)
        skipSpaceAndComments()
      }

    /** The next token, None at the end of the text. */
    def next(): Option[Token] = {
      skipSpaceAndComments()
      if (i >= sql.length) None
      else {
        val start = i
        val c = sql.charAt(i)
        val kind =
          if (Character.isLetterOrDigit(c) || c == '_') {
            while (i < sql.length && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) i += 1
            Word
          } else if (c == '`') {
            closing('`', doubledOnly = true, "the name in backticks starting here is not closed (a ` is missing)")
            Quoted
          } else if (c == '\'' || c == '"') {
            closing(c, doubledOnly = false, s"the string starting here is not closed (a $c is missing)")
            Str
          } else {
            i += (if (sql.startsWith("=>", i)) 2 else 1)
            Symbol
          }
        Some(Token(kind, sql.substring(start, i), start, i))
      }
    }

    /** Moves past the quote closing the one at `i`; a backslash escapes inside strings (Spark's default), a doubled quote in names. */
    private def closing(quote: Char, doubledOnly: Boolean, unclosed: String): Unit = {
      val start = i
      i += 1
      var open = true
      while (open) {
        if (i >= sql.length) fail(start, unclosed)
        val c = sql.charAt(i)
        if (!doubledOnly && c == '\\') i += 2
        else if (c == quote && doubledOnly && sql.startsWith(s"$quote$quote", i)) i += 2
        else { i += 1; if (c == quote) open = false }
      }
    }
  }

  /** Reads the statement after CALL from its tokens. */
  private final class Reader(sql: String, tokens: Vector[Token]) {
    private var at = 0

    private def peek: Option[Token] = tokens.lift(at)
    private def take(): Token = {
      val t = peek.getOrElse(fail(sql.length, "the statement ends early"))
      at += 1
      t
    }
    private def fail(at: Int, detail: String): Nothing = throw error(sql, at, detail)
    private def expected(what: String): Nothing = peek match {
      case Some(t) => fail(t.start, s"expected $what, found '${t.text}'")
      case None => fail(sql.length, s"expected $what, found the end of the statement")
    }

    def statement(): CallStatement = {
      val nameAt = peek.map(_.start).getOrElse(sql.length)
      val name = identifier() +: Iterator.continually(peek).takeWhile(_.exists(_.is("."))).map { _ => take(); identifier() }.toVector
      if (!peek.exists(_.is("("))) expected("'(' after the procedure name")
      take()
      val args =
        if (peek.exists(_.is(")"))) Vector.empty
        else Vector(argument()) ++ Iterator.continually(peek).takeWhile(_.exists(_.is(","))).map { _ => take(); argument() }
      if (!peek.exists(_.is(")"))) expected("',' or ')' after an argument")
      take()
      while (peek.exists(_.is(";"))) take()
      peek.foreach(t => fail(t.start, s"unexpected '${t.text}' after the closing ')' of the CALL"))
      CallStatement(name, args, sql, nameAt)
    }

    /** A name part: plain (as written; Spark compares names case-insensitively) or in backticks. */
    private def identifier(): String = peek match {
      case Some(t) if t.kind == Word => take(); t.text
      case Some(t) if t.kind == Quoted => take(); t.text.substring(1, t.text.length - 1).replace("``", "`")
      case _ => expected("a name")
    }

    /** `name => value` or `value`; the value runs to the next ',' or ')' outside brackets. */
    private def argument(): CallArgument = {
      val first = peek.getOrElse(expected("an argument"))
      val arrow = tokens.lift(at + 1).exists(_.is("=>"))
      val name = (first.kind, arrow) match {
        case (Word | Quoted, true) =>
          val n = identifier()
          take() // =>
          Some(n)
        case _ => None
      }
      val start = peek.map(_.start).getOrElse(sql.length)
      var end = start
      var depth = 0
      while (peek.exists(t => depth > 0 || !(t.is(",") || t.is(")")))) {
        val t = take()
        if (t.is("(") || t.is("[")) depth += 1
        else if (t.is(")") || t.is("]")) depth -= 1
        end = t.end
      }
      if (end == start) fail(start, name.fold("expected an argument")(n => s"expected a value after '$n =>'"))
      CallArgument(name, sql.substring(start, end), first.start)
    }
  }
}
