-- json: a small, strict JSON decoder (RFC 8259) for the output parsers.
--
--   json.decode(s)       the one JSON value that is all of s; white space
--                        around it is fine, any other text is an error
--   json.find_object(s [, init])
--                        the object that starts on the first line beginning
--                        with '{' (at or after byte init, 1 by default),
--                        and the byte just after it; text before it (fio's
--                        "note: ..." and "fio: ..." lines) and after it
--                        (the normal report of json,normal) is skipped:
--                        so init = that byte gives the next object
--   json.null            what null decodes to: nil cannot sit in a table
--
-- Objects become tables with string keys (a repeated key: the last one
-- wins), arrays sequences, numbers Lua numbers (integers when written as
-- integers that fit in 64 bits, otherwise floats), strings Lua strings with
-- every escape resolved, \uXXXX and surrogate pairs as UTF-8. Other bytes
-- inside strings pass through as they are. Objects and arrays nest at most
-- MAX_DEPTH deep, far below what would exhaust Lua's stack. An error is a
-- string "json: <what> at byte <n> (line <l>)", raised without a Lua
-- position in front.

local json = {}

local MAX_DEPTH = 200

json.null = setmetatable({}, {
	__tostring = function() return "null" end,
	__newindex = function() error("json.null is read-only", 2) end,
})

local sub, find, match = string.sub, string.find, string.match

-- ---- errors -------------------------------------------------------------

local function shown(s, pos)
	if pos > #s then
		return "end of input"
	end
	local c = sub(s, pos, pos)
	if find(c, "^%g") then
		return "'" .. c .. "'"
	end
	return ("byte 0x%02x"):format(c:byte())
end

local function fail(s, pos, what)
	local _, newlines = sub(s, 1, pos - 1):gsub("\n", "")
	error(("json: %s at byte %d (line %d)"):format(what, pos, newlines + 1),
	      0)
end

local function expected(s, pos, what)
	fail(s, pos, "expected " .. what .. ", found " .. shown(s, pos))
end

-- ---- the grammar ----------------------------------------------------------

local function skip_space(s, pos)
	return find(s, "[^ \t\r\n]", pos) or #s + 1
end

local escapes = {
	['"'] = '"', ["\\"] = "\\", ["/"] = "/",
	b = "\b", f = "\f", n = "\n", r = "\r", t = "\t",
}

local function hex4(s, pos)
	local digits = match(s, "^%x%x%x%x", pos)
	if not digits then
		expected(s, pos, "4 hex digits")
	end
	return tonumber(digits, 16)
end

-- \uXXXX at pos (the backslash), a surrogate pair taken whole: the
-- character as UTF-8 and the byte after the escape.
local function unicode_escape(s, pos)
	local cp = hex4(s, pos + 2)
	if cp >= 0xDC00 and cp <= 0xDFFF then
		fail(s, pos, "lone low surrogate \\u" .. sub(s, pos + 2, pos + 5))
	end
	if cp >= 0xD800 and cp <= 0xDBFF then
		if sub(s, pos + 6, pos + 7) ~= "\\u" then
			fail(s, pos, "high surrogate without its low half")
		end
		local low = hex4(s, pos + 8)
		if low < 0xDC00 or low > 0xDFFF then
			fail(s, pos + 6, "expected a low surrogate, found \\u"
			     .. sub(s, pos + 8, pos + 11))
		end
		cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
		return utf8.char(cp), pos + 12
	end
	return utf8.char(cp), pos + 6
end

-- The string whose opening quote is at pos, and the byte after it.
local function string_at(s, pos)
	local parts, i = {}, pos + 1
	while true do
		local j = find(s, '["\\\0-\31]', i)
		if not j then
			fail(s, pos, "unterminated string")
		end
		parts[#parts + 1] = sub(s, i, j - 1)
		local c = sub(s, j, j)
		if c == '"' then
			return table.concat(parts), j + 1
		elseif c ~= "\\" then
			fail(s, j, "control character in a string")
		end
		local e = sub(s, j + 1, j + 1)
		if e == "u" then
			parts[#parts + 1], i = unicode_escape(s, j)
		elseif escapes[e] then
			parts[#parts + 1], i = escapes[e], j + 2
		else
			fail(s, j, "invalid escape \\" .. e)
		end
	end
end

-- -? int frac? exp? exactly as the RFC has it, then tonumber.
local function number_at(s, pos)
	local _, stop = find(s, "^-?%d+", pos)
	if not stop then
		expected(s, pos + 1, "a digit")
	end
	if find(s, "^-?0%d", pos) then
		fail(s, pos, "leading zero in a number")
	end
	if sub(s, stop + 1, stop + 1) == "." then
		local _, frac = find(s, "^%d+", stop + 2)
		if not frac then
			expected(s, stop + 2, "a digit after '.'")
		end
		stop = frac
	end
	if find(s, "^[eE]", stop + 1) then
		local _, exp = find(s, "^[-+]?%d+", stop + 2)
		if not exp then
			expected(s, stop + 2, "the exponent's digits")
		end
		stop = exp
	end
	return tonumber(sub(s, pos, stop)), stop + 1
end

local literals = { ["true"] = true, ["false"] = false, null = json.null }

local value	-- value, object and array call each other

local function array_at(s, pos, depth)
	local arr = {}
	pos = skip_space(s, pos + 1)
	if sub(s, pos, pos) == "]" then
		return arr, pos + 1
	end
	while true do
		local v
		v, pos = value(s, pos, depth)
		arr[#arr + 1] = v
		pos = skip_space(s, pos)
		local c = sub(s, pos, pos)
		if c == "]" then
			return arr, pos + 1
		elseif c ~= "," then
			expected(s, pos, "',' or ']'")
		end
		pos = pos + 1
	end
end

local function object_at(s, pos, depth)
	local obj = {}
	pos = skip_space(s, pos + 1)
	if sub(s, pos, pos) == "}" then
		return obj, pos + 1
	end
	while true do
		local key, v
		if sub(s, pos, pos) ~= '"' then
			expected(s, pos, "a string key")
		end
		key, pos = string_at(s, pos)
		pos = skip_space(s, pos)
		if sub(s, pos, pos) ~= ":" then
			expected(s, pos, "':'")
		end
		v, pos = value(s, pos + 1, depth)
		obj[key] = v
		pos = skip_space(s, pos)
		local c = sub(s, pos, pos)
		if c == "}" then
			return obj, pos + 1
		elseif c ~= "," then
			expected(s, pos, "',' or '}'")
		end
		pos = skip_space(s, pos + 1)
	end
end

-- The value at pos or after white space, and the byte after it. depth:
-- how many objects and arrays enclose it.
function value(s, pos, depth)
	pos = skip_space(s, pos)
	local c = sub(s, pos, pos)
	if c == "{" or c == "[" then
		if depth >= MAX_DEPTH then
			fail(s, pos, "nesting deeper than " .. MAX_DEPTH)
		end
		if c == "{" then
			return object_at(s, pos, depth + 1)
		end
		return array_at(s, pos, depth + 1)
	elseif c == '"' then
		return string_at(s, pos)
	elseif c == "-" or find(c, "^%d") then
		return number_at(s, pos)
	end
	local word = match(s, "^%a+", pos)
	if literals[word] == nil then
		expected(s, pos, "a value")
	end
	return literals[word], pos + #word
end

-- ---- entry points -----------------------------------------------------------

local function need_string(s, who)
	if type(s) ~= "string" then
		error(who .. ": expected a string, got " .. type(s), 3)
	end
end

function json.decode(s)
	need_string(s, "json.decode")
	local v, pos = value(s, 1, 0)
	pos = skip_space(s, pos)
	if pos <= #s then
		fail(s, pos, "text after the JSON value (" .. shown(s, pos) .. ")")
	end
	return v
end

function json.find_object(s, init)
	need_string(s, "json.find_object")
	local start = init or 1
	if start > 1 or sub(s, 1, 1) ~= "{" then
		local newline = find(s, "\n{", start - 1, true)
		if not newline then
			fail(s, #s + 1, "no line starts with '{'")
		end
		start = newline + 1
	end
	return object_at(s, start, 1)
end

return json
